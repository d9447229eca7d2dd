//! Resolved value types and symbolic shapes.

use std::fmt;

/// A symbolic length: built from literals and `param`s (constants are folded in).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
