//! The syntax tree of a `.otp` file, as written (before name resolution).

use crate::source::Span;

/// A name with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The text.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// Everything declared in one file.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// `import "x.otp";`
    pub imports: Vec<(String, Span)>,
    /// `intrinsic f(a: T) -> U = path;`
    pub intrinsics: Vec<IntrinsicDecl>,
    /// `extern type Name = path;`
    pub extern_types: Vec<ExternType>,
    /// `functionality Name(role A, role B) { ... }`
    pub functionalities: Vec<Functionality>,
    /// `protocol Name(...) { ... }`
    pub protocols: Vec<Protocol>,
    /// Names of the top-level items that failed to parse (their uses are
    /// not reported again).
    pub broken: Vec<String>,
}

/// An intrinsic signature bound to a Rust function path.
#[derive(Clone, Debug)]
pub struct IntrinsicDecl {
    /// Its name in `.otp` code.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Field>,
    /// Return type (shapes may name `usize` parameters).
    pub ret: Type,
    /// The Rust function called.
    pub path: String,
    /// Where `path` is written.
    pub path_span: Span,
    /// `chunked`: the Rust function is a streamed kernel, computing the
    /// entries of a span of its result along its last dimension into an
    /// output, called with the arguments then `span: Span, out` (`chunked`
    /// rounds call it chunk by chunk, everything else once over the whole
    /// width). Holds the kernel's path (the same as `path`).
    pub chunk: Option<String>,
    /// The span of a second path after `chunked` (the retired form
    /// `= whole chunked chunk_variant`), reported when the intrinsic is
    /// called.
    pub stale_chunk_path: Option<Span>,
    /// Per parameter: `move`, i.e. the Rust function takes the value (a
    /// `Vec` by value) and a value whose last use is this call is moved in
    /// instead of copied.
    pub moves: Vec<bool>,
    /// `holding(bytes)`: an upper bound of the heap memory the result owns
    /// (a big integer's limbs, a `Vec`'s buffer), from the `usize`
    /// parameters; the memory budget of `Params::new` counts it for every
    /// value the call defines.
    pub holding: Option<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// A Rust type usable as an opaque value type.
#[derive(Clone, Debug)]
pub struct ExternType {
    /// Its name in `.otp` code.
    pub name: Ident,
    /// The Rust path.
    pub path: String,
}

/// An ideal functionality: the interface a sub-protocol call is checked against.
#[derive(Clone, Debug)]
pub struct Functionality {
    /// Its name.
    pub name: Ident,
    /// Its roles.
    pub roles: Vec<RoleDecl>,
    /// Its parameters.
    pub params: Vec<ParamDecl>,
    /// Its inputs and outputs.
    pub io: Vec<IoDecl>,
    /// `impl Role = path::Trait::method(args);`: the Rust implementation of each role.
    pub impls: Vec<FuncImpl>,
    /// `error = path;`: the error type of the role traits' methods (must
    /// implement `From<Box<dyn Error + Send + Sync>>`); `None`: that box.
    pub error: Option<String>,
}

/// How a functionality role is run from generated code: a trait method
/// called as `Trait::method(&mut impl, channel, args...)`, returning the
/// role's outputs (one value, or a tuple in declaration order).
#[derive(Clone, Debug)]
pub struct FuncImpl {
    /// The functionality role.
    pub role: Ident,
    /// `path::Trait::method`.
    pub path: String,
    /// Names of parameters and inputs passed after the channel.
    pub args: Vec<Ident>,
    /// The declaration.
    pub span: Span,
}

/// A role declaration: `role Sender` or `role P[n]`.
#[derive(Clone, Debug)]
pub struct RoleDecl {
    /// Name.
    pub name: Ident,
    /// Number of parties for a multiparty role.
    pub count: Option<Expr>,
}

/// A protocol.
#[derive(Clone, Debug)]
pub struct Protocol {
    /// Its name.
    pub name: Ident,
    /// Roles (inherited when `extends` is used and none are given).
    pub roles: Vec<RoleDecl>,
    /// `extends Base`.
    pub extends: Option<Ident>,
    /// `realizes F[fparam = param](FRole = Role) with { FRole.field = field }`,
    /// parsed like a `do` call (its `name` is the functionality's name, its
    /// `inputs` map functionality inputs and outputs to the protocol's).
    pub realizes: Option<DoStmt>,
    /// Items in order.
    pub items: Vec<Item>,
    /// `about { key = "text"; ... }`, if written (not inherited by `extends`).
    pub about: Option<About>,
    /// The header.
    pub span: Span,
}

/// `about { key = "text"; ... }`: what a protocol is (see `check::about`).
#[derive(Clone, Debug)]
pub struct About {
    /// The entries in order: key, text (without its quotes), and where the
    /// text is written.
    pub entries: Vec<(Ident, String, Span)>,
    /// The block.
    pub span: Span,
}

impl Stmt {
    /// The name the statement assigns, if any.
    pub fn assigned(&self) -> Option<&str> {
        match self {
            Stmt::Assign { name, .. } => Some(name.name.as_str()),
            Stmt::Check { .. } => None,
        }
    }
}

/// An item of a protocol body.
// Items are built once per compilation; boxing the large variants would
// only add noise to every match.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Item {
    /// `const K: usize = 128;`
    Const(ConstDecl),
    /// `param m: usize requires ...;`
    Param(ParamDecl),
    /// `input R { ... }` / `output R { ... }`
    Io(IoDecl),
    /// `at R { ... }`
    At(AtBlock),
    /// `round ...`
    Round(Round),
    /// `do x: F[...](...);`
    Do(DoStmt),
    /// `insert after r { ... }` (only in a protocol that `extends` another)
    Insert(Insert),
    /// `omit name, ...;` (only in a protocol that `extends` another)
    Omit(Omit),
}

/// A compile-time constant.
#[derive(Clone, Debug)]
pub struct ConstDecl {
    /// Name.
    pub name: Ident,
    /// Type.
    pub ty: Type,
    /// Value.
    pub value: Expr,
    /// A predicate the value must satisfy.
    pub requires: Option<Expr>,
}

/// A run-time parameter both parties agree on.
#[derive(Clone, Debug)]
pub struct ParamDecl {
    /// Name.
    pub name: Ident,
    /// Type.
    pub ty: Type,
    /// Checked when `Params` are built.
    pub requires: Option<Expr>,
    /// Marked `tuning`: only tunes performance, left out of the session
    /// binding.
    pub tuning: bool,
}

/// Input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    /// Given to the role.
    Input,
    /// Returned by the role.
    Output,
}

/// `input R { a: T }` or `output R { a: T }`.
#[derive(Clone, Debug)]
pub struct IoDecl {
    /// Input or output.
    pub kind: IoKind,
    /// Whose.
    pub role: RoleRef,
    /// The values.
    pub fields: Vec<Field>,
    /// The whole declaration.
    pub span: Span,
}

/// `name: Type`.
#[derive(Clone, Debug)]
pub struct Field {
    /// Name.
    pub name: Ident,
    /// Type.
    pub ty: Type,
}

/// A reference to a role, `Sender` or `P[i]`.
#[derive(Clone, Debug)]
pub struct RoleRef {
    /// Role name.
    pub name: Ident,
    /// Party index for multiparty roles.
    pub index: Option<Expr>,
}

/// `at R { stmts }`.
#[derive(Clone, Debug)]
pub struct AtBlock {
    /// Who computes.
    pub role: RoleRef,
    /// What.
    pub stmts: Vec<Stmt>,
    /// The whole block.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `x = e;`
    Assign {
        /// Defined name.
        name: Ident,
        /// Value.
        value: Expr,
    },
    /// `check e else abort Name;`
    Check {
        /// Must hold.
        cond: Expr,
        /// The error variant otherwise.
        abort: Ident,
        /// The whole statement.
        span: Span,
    },
}

/// Destination of a round.
#[derive(Clone, Debug)]
pub enum Target {
    /// One role.
    Role(RoleRef),
    /// Broadcast to every party.
    All(Span),
}

/// `round name: A -> B : Msg { fields } chunked(by = e) { at A { ... } }`.
#[derive(Clone, Debug)]
pub struct Round {
    /// Round name.
    pub name: Ident,
    /// Sender of the message.
    pub from: RoleRef,
    /// Receiver(s).
    pub to: Target,
    /// Message type name.
    pub msg: Ident,
    /// Message fields (values of the sender, by name).
    pub fields: Vec<Field>,
    /// Transport hint.
    pub chunk_by: Option<Expr>,
    /// Where `chunked(by = ...)` is written.
    pub chunked: Option<Span>,
    /// Local computation attached to the round.
    pub body: Vec<AtBlock>,
    /// `-> all unchecked`: a broadcast without the consistency check.
    pub unchecked: Option<Span>,
    /// The header (up to the message fields).
    pub span: Span,
}

/// `do name: F[p = e](FRole = Role, ...) with { FRole.field = e };`
#[derive(Clone, Debug)]
pub struct DoStmt {
    /// Call name (its outputs are `name.field`).
    pub name: Ident,
    /// Functionality.
    pub func: Ident,
    /// Parameter bindings.
    pub params: Vec<(Ident, Expr)>,
    /// Role mapping: functionality role = protocol role.
    pub roles: Vec<(Ident, RoleRef)>,
    /// Input bindings: functionality role, input field, value.
    pub inputs: Vec<(Ident, Ident, Expr)>,
    /// The whole statement.
    pub span: Span,
}

/// `insert after r { items }`.
#[derive(Clone, Debug)]
pub struct Insert {
    /// After (true) or before (false).
    pub after: bool,
    /// The anchor round or call.
    pub anchor: Ident,
    /// Inserted items.
    pub items: Vec<Item>,
    /// The header.
    pub span: Span,
}

/// `omit a, b;`: base items left out of a protocol that `extends` it.
#[derive(Clone, Debug)]
pub struct Omit {
    /// The names: of a round, a `do` call, a value (every statement
    /// assigning it) or an output field of the base.
    pub names: Vec<Ident>,
    /// The whole item.
    pub span: Span,
}

/// A type as written.
#[derive(Clone, Debug)]
pub struct Type {
    /// Which.
    pub kind: TypeKind,
    /// Where.
    pub span: Span,
}

/// Type shapes.
#[derive(Clone, Debug)]
pub enum TypeKind {
    /// `Name` or `Name[args]`.
    Named(Ident, Vec<Expr>),
    /// `[T; n]`.
    Array(Box<Type>, Box<Expr>),
}

/// An expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// Which.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<` (a shift by the type's width or more gives 0)
    Shl,
    /// `>>` (a shift by the type's width or more gives 0)
    Shr,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-`
    Neg,
    /// `as T` (in the typed IR only: the expression's type is the target)
    Cast,
}

/// Expression forms.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// `42`
    Int(u128),
    /// `true`
    Bool(bool),
    /// `x`
    Var(String),
    /// `base.k0`
    Member(Box<Expr>, Ident),
    /// `x[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `f(a, b)`
    Call(Ident, Vec<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `op a`
    Unary(UnOp, Box<Expr>),
    /// `a as T` (also a suffixed literal: `5u64` is `5 as u64`)
    Cast(Box<Expr>, Type),
    /// `sample T`
    Sample(Type),
    /// `[e for i in lo..hi]`
    Comprehension {
        /// Element.
        body: Box<Expr>,
        /// Index variable.
        var: Ident,
        /// Lower bound.
        lo: Box<Expr>,
        /// Upper bound (exclusive).
        hi: Box<Expr>,
    },
    /// `[a, b]`
    Array(Vec<Expr>),
}
