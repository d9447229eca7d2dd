//! Resolved value types and symbolic shapes.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A symbolic length: built from literals and `param`s (constants are folded in).
///
/// Two shapes are equal when their polynomial normal forms are (see
/// [`Shape::normal_form`]): `3 * (2 * m)` equals `6 * m`, `m + n` equals
/// `n + m`. The written form is kept for messages and generated code.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A known number.
    Lit(u128),
    /// A run-time parameter of the protocol.
    Param(String),
    /// An arithmetic combination.
    Bin(char, Box<Shape>, Box<Shape>),
}

impl Shape {
    /// Combines two shapes, folding constants.
    pub fn bin(op: char, a: Shape, b: Shape) -> Shape {
        if let (Shape::Lit(x), Shape::Lit(y)) = (&a, &b) {
            let v = match op {
                '+' => x.checked_add(*y),
                '-' => x.checked_sub(*y),
                '*' => x.checked_mul(*y),
                '/' => x.checked_div(*y),
                '%' => x.checked_rem(*y),
                // `x << y` (written only in `holding` bounds): no bit lost.
                '<' => u32::try_from(*y)
                    .ok()
                    .filter(|&s| s < 128 && x.leading_zeros() >= s)
                    .map(|s| x << s),
                _ => None,
            };
            if let Some(v) = v {
                return Shape::Lit(v);
            }
        }
        match (op, &a, &b) {
            ('+', _, Shape::Lit(0))
            | ('-', _, Shape::Lit(0))
            | ('*', _, Shape::Lit(1))
            | ('/', _, Shape::Lit(1)) => a,
            ('+', Shape::Lit(0), _) | ('*', Shape::Lit(1), _) => b,
            // x + (y - x) = y and (y - x) + x = y: splitting a length into parts and joining them.
            ('+', x, Shape::Bin('-', y, x2)) | ('+', Shape::Bin('-', y, x2), x) if x == &**x2 => {
                (**y).clone()
            }
            // (x + y) - y = x and x - x = 0.
            ('-', Shape::Bin('+', x, y), z) if &**y == z => (**x).clone(),
            ('-', x, y) if x == y => Shape::Lit(0),
            _ => Shape::Bin(op, Box::new(a), Box::new(b)),
        }
    }

    /// Substitutes parameters by shapes (used when instantiating signatures).
    pub fn subst(&self, f: &dyn Fn(&str) -> Option<Shape>) -> Shape {
        match self {
            Shape::Lit(v) => Shape::Lit(*v),
            Shape::Param(p) => f(p).unwrap_or_else(|| self.clone()),
            Shape::Bin(op, a, b) => Shape::bin(*op, a.subst(f), b.subst(f)),
        }
    }

    /// The length if it is a known number of at most [`SMALL_ARRAY`]: such
    /// arrays are Rust arrays `[T; n]` (by value when `T` is `Copy`); all
    /// other arrays are `Vec<T>`.
    pub fn small(&self) -> Option<usize> {
        match self {
            Shape::Lit(v) if *v <= SMALL_ARRAY as u128 => Some(*v as usize),
            _ => None,
        }
    }

    /// The value if the shape is a known number.
    pub fn lit(&self) -> Option<u128> {
        match self {
            Shape::Lit(v) => Some(*v),
            _ => None,
        }
    }
}

/// A product of atoms (parameters, or quotients and remainders kept
/// whole), sorted.
type Monomial = Vec<String>;

/// A polynomial with integer coefficients over atoms.
type Poly = BTreeMap<Monomial, i128>;

/// The most terms a normal form may have (larger shapes compare as written).
const MAX_TERMS: usize = 256;

fn poly(s: &Shape) -> Option<Poly> {
    let mut out = Poly::new();
    match s {
        Shape::Lit(v) => {
            out.insert(vec![], i128::try_from(*v).ok()?);
        }
        Shape::Param(p) => {
            out.insert(vec![p.clone()], 1);
        }
        Shape::Bin(op @ ('+' | '-'), a, b) => {
            out = poly(a)?;
            for (m, c) in poly(b)? {
                let c = if *op == '-' { c.checked_neg()? } else { c };
                let e = out.entry(m).or_insert(0);
                *e = e.checked_add(c)?;
            }
        }
        Shape::Bin('*', a, b) => {
            let (pa, pb) = (poly(a)?, poly(b)?);
            // Expanding a product of long sums can explode: beyond a small
            // size, fall back to comparing the written form.
            if pa.len().saturating_mul(pb.len()) > MAX_TERMS {
                return None;
            }
            for (ma, ca) in &pa {
                for (mb, cb) in &pb {
                    let mut m: Monomial = ma.iter().chain(mb).cloned().collect();
                    m.sort();
                    let e = out.entry(m).or_insert(0);
                    *e = e.checked_add(ca.checked_mul(*cb)?)?;
                }
            }
        }
        Shape::Bin(op, a, b) => {
            let atom = format!("({} {op} {})", a.normal_form()?, b.normal_form()?);
            out.insert(vec![atom], 1);
        }
    }
    out.retain(|_, c| *c != 0);
    Some(out)
}

impl Shape {
    /// The polynomial normal form as text: sums and products of literals
    /// and parameters are expanded and collected (quotients and remainders
    /// are atoms whose operands are normalized). Sound for lengths because
    /// `Params::new` computes them with checked arithmetic: a run never
    /// sees a subtraction that wrapped. `None` if a coefficient overflows.
    pub fn normal_form(&self) -> Option<String> {
        let p = poly(self)?;
        if p.is_empty() {
            return Some("0".into());
        }
        Some(
            p.iter()
                .map(|(m, c)| {
                    let mut t = c.to_string();
                    for a in m {
                        t.push('*');
                        t.push_str(a);
                    }
                    t
                })
                .collect::<Vec<_>>()
                .join(" + "),
        )
    }

    fn same_tree(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Lit(a), Shape::Lit(b)) => a == b,
            (Shape::Param(a), Shape::Param(b)) => a == b,
            (Shape::Bin(o, a, b), Shape::Bin(p, c, d)) => {
                o == p && a.same_tree(c) && b.same_tree(d)
            }
            _ => false,
        }
    }
}

impl PartialEq for Shape {
    fn eq(&self, other: &Shape) -> bool {
        if let (Shape::Lit(a), Shape::Lit(b)) = (self, other) {
            return a == b;
        }
        match (self.normal_form(), other.normal_form()) {
            (Some(a), Some(b)) => a == b,
            _ => self.same_tree(other),
        }
    }
}

impl Eq for Shape {}

impl Hash for Shape {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self.normal_form() {
            Some(n) => n.hash(h),
            None => self.to_string().hash(h),
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Lit(v) => write!(f, "{v}"),
            Shape::Param(p) => write!(f, "{p}"),
            Shape::Bin(op, a, b) => {
                let wrap = |s: &Shape| match s {
                    Shape::Bin(..) => format!("({s})"),
                    _ => s.to_string(),
                };
                let op = if *op == '<' {
                    "<<".to_string()
                } else {
                    op.to_string()
                };
                write!(f, "{} {op} {}", wrap(a), wrap(b))
            }
        }
    }
}

/// A value type of the `.otp` language.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// One bit (`bool`).
    Bit,
    /// 128 bits.
    Block,
    /// A 128-bit PRG seed.
    Seed,
    /// A Ristretto point.
    Point,
    /// A Ristretto scalar.
    Scalar,
    /// An index or size.
    Usize,
    /// A 64-bit integer (arithmetic mod 2^64).
    U64,
    /// A 32-bit integer (arithmetic mod 2^32).
    U32,
    /// An 8-bit integer (arithmetic mod 2^8).
    U8,
    /// A packed bit vector of the given length.
    Bits(Shape),
    /// A rows x cols bit matrix.
    BitMatrix(Shape, Shape),
    /// An array.
    Array(Box<Ty>, Shape),
    /// An opaque Rust type (name, path).
    Extern(String, String),
}

impl Ty {
    /// Whether the generated Rust value is `Copy` (passed by value to intrinsics).
    pub fn is_copy(&self) -> bool {
        match self {
            Ty::Bit
            | Ty::Block
            | Ty::Seed
            | Ty::Point
            | Ty::Scalar
            | Ty::Usize
            | Ty::U64
            | Ty::U32
            | Ty::U8 => true,
            Ty::Array(t, n) if n.small().is_some() => t.is_copy(),
            _ => false,
        }
    }

    /// Whether it is an integer type.
    pub fn is_int(&self) -> bool {
        self.int_bits().is_some()
    }

    /// The width in bits of an integer type (`usize` is 64 bits: generated
    /// code targets 64-bit platforms, and wire encodings carry it as `u64`).
    pub fn int_bits(&self) -> Option<u32> {
        match self {
            Ty::Usize | Ty::U64 => Some(64),
            Ty::U32 => Some(32),
            Ty::U8 => Some(8),
            _ => None,
        }
    }

    /// The largest value of an integer type.
    pub fn int_max(&self) -> Option<u128> {
        self.int_bits().map(|b| (1u128 << b) - 1)
    }
}

/// How a value of a type travels on the wire: the one definition of every
/// message's size. Code generation prints it as the Rust expression of a
/// message's `wire_len` and `comm()`; `otp cost` and `otp diagram` evaluate
/// it for given parameters. The bytes of a fixed-size value are its Rust
/// type's `Wire::SIZE` in the runtime, which owns the codec.
#[derive(Clone, Debug, PartialEq)]
pub enum WireLen {
    /// A value of fixed wire size (see [`Ty::is_fixed_wire`]): `Wire::SIZE`
    /// of its Rust type.
    Fixed(Ty),
    /// A `usize`: 8 bytes (as a `u64`).
    Word,
    /// `Bits[n]`: `ceil(n / 8)` bytes.
    Bits(Shape),
    /// `BitMatrix[r, c]`: `r * ceil(c / 128)` blocks of 16 bytes.
    Matrix(Shape, Shape),
    /// `[T; n]` of variable length: `n` times the element's size.
    Array(Box<WireLen>, Shape),
    /// A type with no wire form (zero bytes).
    Unsendable,
}

impl WireLen {
    /// The wire layout of a value of type `t`.
    pub fn of(t: &Ty) -> WireLen {
        match t {
            Ty::Usize => WireLen::Word,
            _ if t.is_fixed_wire() => WireLen::Fixed(t.clone()),
            Ty::Bits(n) => WireLen::Bits(n.clone()),
            Ty::BitMatrix(r, c) => WireLen::Matrix(r.clone(), c.clone()),
            Ty::Array(e, n) => WireLen::Array(Box::new(WireLen::of(e)), n.clone()),
            _ => WireLen::Unsendable,
        }
    }

    /// The bytes, given the value of every shape and of every fixed-size
    /// type's `Wire::SIZE`; an error of either is passed on. Arithmetic
    /// wraps, as the generated `wire_len` does.
    pub fn bytes<E>(
        &self,
        shape: &dyn Fn(&Shape) -> Result<u128, E>,
        fixed: &dyn Fn(&Ty) -> Result<u128, E>,
    ) -> Result<u128, E> {
        Ok(match self {
            WireLen::Fixed(t) => fixed(t)?,
            WireLen::Word => 8,
            WireLen::Bits(n) => shape(n)?.div_ceil(8),
            WireLen::Matrix(r, c) => shape(r)?
                .wrapping_mul(shape(c)?.div_ceil(128))
                .wrapping_mul(16),
            WireLen::Array(e, n) => shape(n)?.wrapping_mul(e.bytes(shape, fixed)?),
            WireLen::Unsendable => 0,
        })
    }

    /// The size as a formula over the parameters (`ceil(m / 8)`,
    /// `k * ceil(m / 128) * 16`), with `fixed` giving the bytes of
    /// fixed-size types and `None` where a size is unknown.
    pub fn formula(&self, fixed: &dyn Fn(&Ty) -> Option<u128>) -> String {
        let wrap = |s: &Shape| match s {
            Shape::Bin(..) => format!("({s})"),
            _ => s.to_string(),
        };
        let lit = |s: &Shape| s.lit().ok_or(());
        let known = |t: &Ty| fixed(t).ok_or(());
        if let Ok(v) = self.bytes(&lit, &known) {
            return v.to_string();
        }
        match self {
            WireLen::Bits(n) => format!("ceil({} / 8)", wrap(n)),
            WireLen::Matrix(r, c) => format!("{} * ceil({} / 128) * 16", wrap(r), wrap(c)),
            WireLen::Array(e, n) => format!("{} * {}", wrap(n), e.formula(fixed)),
            _ => "?".into(),
        }
    }
}

impl Ty {
    /// Whether the type has a fixed wire size (implements the runtime's
    /// `Wire` trait): scalars, extern types, and arrays of them of a small
    /// constant length (Rust arrays).
    pub fn is_fixed_wire(&self) -> bool {
        match self {
            Ty::Bit
            | Ty::Block
            | Ty::Seed
            | Ty::Point
            | Ty::Scalar
            | Ty::U64
            | Ty::U32
            | Ty::U8
            | Ty::Extern(..) => true,
            Ty::Array(e, n) if n.small().is_some() => e.is_fixed_wire(),
            _ => false,
        }
    }
}

impl Shape {
    /// Adds the run-time parameters the shape depends on to `out`, each once,
    /// in order of appearance.
    pub fn params_into(&self, out: &mut Vec<String>) {
        match self {
            Shape::Lit(_) => {}
            Shape::Param(p) => {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
            Shape::Bin(_, a, b) => {
                a.params_into(out);
                b.params_into(out);
            }
        }
    }
}

impl Ty {
    /// Adds the run-time parameters a value's size depends on to `out`.
    pub fn params_into(&self, out: &mut Vec<String>) {
        match self {
            Ty::Bits(n) => n.params_into(out),
            Ty::BitMatrix(r, c) => {
                r.params_into(out);
                c.params_into(out);
            }
            Ty::Array(e, n) => {
                n.params_into(out);
                e.params_into(out);
            }
            _ => {}
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bit => write!(f, "Bit"),
            Ty::Block => write!(f, "Block"),
            Ty::Seed => write!(f, "Seed"),
            Ty::Point => write!(f, "Point"),
            Ty::Scalar => write!(f, "Scalar"),
            Ty::Usize => write!(f, "usize"),
            Ty::U64 => write!(f, "u64"),
            Ty::U32 => write!(f, "u32"),
            Ty::U8 => write!(f, "u8"),
            Ty::Bits(n) => write!(f, "Bits[{n}]"),
            Ty::BitMatrix(r, c) => write!(f, "BitMatrix[{r}, {c}]"),
            Ty::Array(t, n) => write!(f, "[{t}; {n}]"),
            Ty::Extern(n, _) => write!(f, "{n}"),
        }
    }
}

/// Largest literal length generated as a Rust array rather than a `Vec`.
pub const SMALL_ARRAY: usize = 16;

/// Names of the built-in types, for "did you mean".
pub const BUILTIN_TYPES: &[&str] = &[
    "Bit",
    "Block",
    "Seed",
    "Point",
    "Scalar",
    "usize",
    "u64",
    "u32",
    "u8",
    "Bits",
    "BitMatrix",
];

#[cfg(test)]
mod tests {
    use super::Shape;

    fn p(n: &str) -> Shape {
        Shape::Param(n.into())
    }
    fn b(op: char, x: Shape, y: Shape) -> Shape {
        Shape::Bin(op, Box::new(x), Box::new(y))
    }

    #[test]
    fn products_and_sums_of_literals_and_params_normalize() {
        let m = p("m");
        assert_eq!(
            b('*', Shape::Lit(3), b('*', Shape::Lit(2), m.clone())),
            b('*', Shape::Lit(6), m.clone())
        );
        assert_eq!(b('+', p("n"), m.clone()), b('+', m.clone(), p("n")));
        assert_eq!(
            b('*', b('+', m.clone(), Shape::Lit(1)), Shape::Lit(2)),
            b('+', b('*', Shape::Lit(2), m.clone()), Shape::Lit(2))
        );
        assert_eq!(b('-', b('+', m.clone(), p("k")), p("k")), m);
        assert_eq!(b('-', m.clone(), m.clone()), Shape::Lit(0));
        assert_ne!(
            b('*', Shape::Lit(3), m.clone()),
            b('*', Shape::Lit(2), m.clone())
        );
        assert_ne!(m.clone(), p("n"));
    }

    #[test]
    fn quotients_are_atoms_with_normalized_operands() {
        let m = p("m");
        let q1 = b('/', b('+', m.clone(), Shape::Lit(1)), p("k"));
        let q2 = b('/', b('+', Shape::Lit(1), m.clone()), p("k"));
        assert_eq!(q1, q2);
        assert_eq!(
            b('*', Shape::Lit(2), q1.clone()),
            b('+', q2.clone(), q1.clone())
        );
        // (2 * m) / 2 is not simplified to m: integer division is kept whole.
        assert_ne!(b('/', b('*', Shape::Lit(2), m.clone()), Shape::Lit(2)), m);
    }

    #[test]
    fn equal_shapes_hash_equally() {
        use std::collections::HashSet;
        let m = p("m");
        let mut set = HashSet::new();
        set.insert(b('*', Shape::Lit(3), b('*', Shape::Lit(2), m.clone())));
        assert!(set.contains(&b('*', m, Shape::Lit(6))));
    }

    #[test]
    fn long_products_of_sums_fall_back_instead_of_exploding() {
        let sum = (0..12).fold(Shape::Lit(1), |acc, k| {
            Shape::Bin('+', Box::new(acc), Box::new(Shape::Param(format!("p{k}"))))
        });
        let mut prod = sum.clone();
        for _ in 0..40 {
            prod = Shape::Bin('*', Box::new(prod), Box::new(sum.clone()));
        }
        assert_eq!(prod.normal_form(), None);
        assert_eq!(prod, prod.clone());
    }
}
