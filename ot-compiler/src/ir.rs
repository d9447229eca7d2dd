//! The checked, typed and projected form of a protocol that code generation
//! consumes. Every name here is resolved and every expression typed.

use crate::ast::{BinOp, UnOp};
use crate::source::Span;
use crate::types::{Shape, Ty};

/// The prefix marking a built-in function (`bit`, `select`, ...) in an IR
/// call ([`TExprKind::Call`]).
pub const BUILTIN_PREFIX: &str = "builtin:";

/// A typed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct TExpr {
    /// Form.
    pub kind: TExprKind,
    /// Type.
    pub ty: Ty,
}

/// Dropped without recursion: an operator chain is as deep as it is long.
impl Drop for TExpr {
    fn drop(&mut self) {
        fn take(k: &mut TExprKind, out: &mut Vec<TExpr>) {
            match std::mem::replace(k, TExprKind::Int(0)) {
                TExprKind::Index(a, b) | TExprKind::Binary(_, a, b) => out.extend([*a, *b]),
                TExprKind::Unary(_, a) => out.push(*a),
                TExprKind::Call(_, args) | TExprKind::Array(args) => out.extend(args),
                TExprKind::Comprehension { body, lo, hi, .. } => out.extend([*body, *lo, *hi]),
                _ => {}
            }
        }
        if !matches!(
            self.kind,
            TExprKind::Index(..) | TExprKind::Binary(..) | TExprKind::Unary(..)
        ) {
            return;
        }
        let mut pending = vec![];
        take(&mut self.kind, &mut pending);
        while let Some(mut e) = pending.pop() {
            take(&mut e.kind, &mut pending);
        }
    }
}

/// Tree walks over a typed expression (used by the checker, the plan and
/// code generation alike, so each is written once).
impl TExpr {
    /// Counts, per role value, how often the expression reads it.
    pub fn count_locals(&self, out: &mut std::collections::BTreeMap<String, usize>) {
        self.visit(&mut |e| {
            if let TExprKind::Local(n) = &e.kind {
                *out.entry(n.clone()).or_default() += 1;
            }
        });
    }

    /// Adds the role values the expression reads to `out`.
    pub fn locals(&self, out: &mut std::collections::BTreeSet<String>) {
        self.visit(&mut |e| {
            if let TExprKind::Local(n) = &e.kind {
                out.insert(n.clone());
            }
        });
    }

    /// Whether the expression reads the role value `name`.
    pub fn mentions(&self, name: &str) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(&e.kind, TExprKind::Local(n) if n == name));
        found
    }

    /// Whether the expression draws fresh randomness (`sample`).
    pub fn samples(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e.kind, TExprKind::Sample(_)));
        found
    }

    /// Calls `f` on the expression and every sub-expression, parents first.
    pub fn visit(&self, f: &mut dyn FnMut(&TExpr)) {
        f(self);
        match &self.kind {
            TExprKind::Index(a, b) | TExprKind::Binary(_, a, b) => {
                a.visit(f);
                b.visit(f);
            }
            TExprKind::Call(_, args) | TExprKind::Array(args) => {
                args.iter().for_each(|a| a.visit(f))
            }
            TExprKind::Unary(_, a) => a.visit(f),
            TExprKind::Comprehension { body, lo, hi, .. } => {
                body.visit(f);
                lo.visit(f);
                hi.visit(f);
            }
            _ => {}
        }
    }
}

/// Typed expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum TExprKind {
    /// An integer literal.
    Int(u128),
    /// A boolean literal.
    Bool(bool),
    /// A value of the current role.
    Local(String),
    /// A protocol parameter.
    Param(String),
    /// A comprehension index.
    IndexVar(String),
    /// `a[i]`.
    Index(Box<TExpr>, Box<TExpr>),
    /// An intrinsic call: the intrinsic's name (see `Ir::intrinsic_paths`)
    /// and arguments.
    Call(String, Vec<TExpr>),
    /// A binary operation.
    Binary(BinOp, Box<TExpr>, Box<TExpr>),
    /// A unary operation.
    Unary(UnOp, Box<TExpr>),
    /// Fresh randomness of the type.
    Sample(Ty),
    /// A symbolic length as a `usize` value.
    Shape(Shape),
    /// `[body for var in lo..hi]`.
    Comprehension {
        /// Element.
        body: Box<TExpr>,
        /// Index name.
        var: String,
        /// Lower bound.
        lo: Box<TExpr>,
        /// Upper bound.
        hi: Box<TExpr>,
    },
    /// `[a, b]`.
    Array(Vec<TExpr>),
}

/// The heap memory a statement's calls own, from the `holding(bytes)` of
/// the intrinsics it calls, with the call's arguments substituted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StmtHeap {
    /// The assigned value's (its outermost call's `holding`).
    pub value: Option<Shape>,
    /// The other calls' results: temporaries of the statement.
    pub temps: Vec<Shape>,
}

/// A typed local statement.
#[derive(Clone, Debug, PartialEq)]
pub enum TStmt {
    /// `name = value;`
    Assign(String, TExpr),
    /// `check cond else abort Name;` with the source text (for error messages).
    Check(TExpr, String, String),
}

/// One step of a role's projection.
#[derive(Clone, Debug)]
pub enum Event {
    /// Local computation.
    Stmt(TStmt),
    /// Send the message of round `i`.
    Send(usize),
    /// Receive the message of round `i`.
    Recv(usize),
    /// Run sub-protocol call `i`.
    Sub(usize),
    /// A `chunked` round run as a stream (see [`Stream`]).
    Stream(Stream),
}

/// A `chunked` round as one role runs it: a loop over chunks of the round's
/// width in which every [`Stage`] is computed through its intrinsic's chunk
/// variant, and the field's chunk is sent right after the stages that
/// produce it (or received before the stages that read it).
#[derive(Clone, Debug)]
pub struct Stream {
    /// The round.
    pub round: usize,
    /// Whether this role sends the round's field.
    pub sending: bool,
    /// Stages computed before the chunk is sent (the field's producer and
    /// the streamed values it reads); empty on the receiving side.
    pub before: Vec<Stage>,
    /// Stages computed after the chunk is sent or received.
    pub after: Vec<Stage>,
}

/// One computation run chunk by chunk inside a [`Stream`].
#[derive(Clone, Debug)]
pub struct Stage {
    /// The value it defines.
    pub name: String,
    /// The intrinsic call (its streamed kernel is called per chunk, with the
    /// chunk's `Span`).
    pub call: TExpr,
    /// What exists of the value.
    pub keep: Keep,
}

/// What a [`Stage`] keeps of its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Only the current chunk, in a buffer reused for every chunk.
    Chunk,
    /// The whole array, each chunk written in place (an output, or a value
    /// read after the stream).
    Whole,
    /// A `Block` reduction: each chunk's contribution is XORed in.
    Fold,
}

/// A round.
#[derive(Clone, Debug)]
pub struct IrRound {
    /// Round name.
    pub name: String,
    /// Where the round's name is written.
    pub name_span: Span,
    /// Sending role index.
    pub from: usize,
    /// Receiving role index.
    pub to: usize,
    /// Message type name.
    pub msg: String,
    /// Fields and types.
    pub fields: Vec<(String, Ty)>,
    /// `chunked(by = ...)`.
    pub chunk_by: Option<Shape>,
    /// `file:line` of the round.
    pub location: String,
    /// The round's header line, as written.
    pub text: String,
    /// How the parties of an n-party protocol (`role P[n]`) take part in
    /// it; None in a two-party protocol.
    pub party: Option<PartyRound>,
}

/// An n-party round: every party sends (its own value) in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartyRound {
    /// `P[i] -> all`: every party sends the same message to every other;
    /// `checked` unless written `-> all unchecked` (then the parties do not
    /// exchange digests of what they received).
    Broadcast {
        /// Whether the compiler adds the consistency check.
        checked: bool,
    },
    /// `P[i] -> P[j]`: every party sends its own message to each other party
    /// (its value is an array indexed by the receiver).
    Private,
    /// `P[c] -> all`: the fixed party `sender` sends one message to every
    /// other party; `checked` as for [`PartyRound::Broadcast`] (every party
    /// exchanges a digest of the message it received).
    FixedBroadcast {
        /// The sending party's index.
        sender: usize,
        /// Whether the compiler adds the consistency check.
        checked: bool,
    },
    /// `P[c] -> P[j]`: the fixed party `sender` sends each other party its
    /// own message (its value is an array indexed by the receiver).
    FromOne {
        /// The sending party's index.
        sender: usize,
    },
    /// `P[j] -> P[c]`: every other party sends its own message to the fixed
    /// party `receiver`, which then holds the array of all of them.
    ToOne {
        /// The receiving party's index.
        receiver: usize,
    },
    /// `P[i] -> P[(i + c) % n]` (`step = c`) or `P[i] -> P[(i + n - c) % n]`
    /// (`step = -c`), `0 < c` below the least party count: every party
    /// sends one message to the party `c` places after (before) it on the
    /// ring of parties, and holds the one value it receives from the party
    /// `c` places before (after) it.
    ///
    /// With the number of parties fixed (`requires n == K`), also the
    /// affine map `P[i] -> P[(a * i + c) % n]` (`mul = a`, `step = c`), `a`
    /// prime to `K` and no party its own image: a permutation of the `K`
    /// parties; party `j` receives from `inv * (j - c) mod K`.
    Ring {
        /// The receiver's offset from `mul` times the sender, modulo `n`.
        step: i64,
        /// The multiplier `a` (1: a rotation).
        mul: u64,
        /// Its inverse modulo the fixed party count (1 for a rotation).
        inv: u64,
    },
    /// `P[a] -> P[b]`: one fixed party sends one message to another, which
    /// alone then holds the value.
    Between {
        /// The sending party's index.
        sender: usize,
        /// The receiving party's index.
        receiver: usize,
    },
}

impl PartyRound {
    /// The fixed party that sends or receives alone, if any.
    pub fn fixed_party(self) -> Option<usize> {
        match self {
            PartyRound::FixedBroadcast { sender, .. } | PartyRound::FromOne { sender } => {
                Some(sender)
            }
            PartyRound::ToOne { receiver } => Some(receiver),
            PartyRound::Between { sender, .. } => Some(sender),
            _ => None,
        }
    }

    /// Whether the parties exchange digests of the round (a checked broadcast).
    pub fn checked(self) -> bool {
        matches!(
            self,
            PartyRound::Broadcast { checked: true }
                | PartyRound::FixedBroadcast { checked: true, .. }
        )
    }
}

/// The index standing for the named role next to the party array (`role
/// Dealer, role P[n]`) wherever a fixed party's index is recorded
/// ([`PartyRound`], [`FixedParties`]): the dealer is not one of the parties
/// `0..n`; on a mesh it is the endpoint after them, index `n`.
pub const DEALER: usize = usize::MAX;

/// The values and steps of one fixed party in an n-party protocol (`at
/// P[0] { }`, `input P[0] { }`, `output P[0] { }`): held only by that party.
#[derive(Clone, Debug, Default)]
pub struct FixedParties {
    /// Statements of a fixed party: index into the party's events -> party.
    pub stmts: std::collections::BTreeMap<usize, usize>,
    /// Inputs of a fixed party: name -> party.
    pub inputs: std::collections::BTreeMap<String, usize>,
    /// Outputs of a fixed party: name -> party.
    pub outputs: std::collections::BTreeMap<String, usize>,
}

/// A sub-protocol call.
#[derive(Clone, Debug)]
pub struct IrSub {
    /// Call name.
    pub name: String,
    /// Functionality name.
    pub func: String,
    /// Where it is written.
    pub span: Span,
    /// What each participating role runs.
    pub calls: Vec<SubCall>,
    /// The functionality's declared error type (`error = path;`), carried
    /// by `Error::SubProtocol`; `None`: a boxed `dyn Error`.
    pub error: Option<String>,
    /// In an n-party protocol, a call between every pair of parties
    /// (`Sender = P[i], Receiver = P[j]`): every party runs both roles, once
    /// with each other party, and each output `call.field: T` becomes a
    /// `[T; n]` indexed by the peer. Both calls then have role 0.
    pub pairwise: bool,
}

/// `realizes`: the functionality a two-party protocol implements, and how
/// each of its role traits runs the protocol.
#[derive(Clone, Debug)]
pub struct IrRealizes {
    /// Functionality name.
    pub func: String,
    /// The error type the trait methods return (`None`: a boxed `dyn Error`).
    pub error: Option<String>,
    /// One per functionality role.
    pub roles: Vec<RealizedRole>,
}

/// A functionality role implemented by a protocol role.
#[derive(Clone, Debug)]
pub struct RealizedRole {
    /// Protocol role index.
    pub role: usize,
    /// Functionality role name.
    pub func_role: String,
    /// The trait path (the method path without its last segment).
    pub trait_path: String,
    /// The method name.
    pub method: String,
    /// The method's arguments after the channel (functionality names and
    /// types, shapes over the protocol's parameters).
    pub args: Vec<(String, Ty)>,
    /// For each protocol parameter, in order: where a run takes it from.
    pub params: Vec<ParamSource>,
    /// Protocol input and the argument filling it.
    pub inputs: Vec<(String, String)>,
    /// Protocol inputs the functionality does not give: fields of the
    /// realization struct, cloned into each run (name, type).
    pub fields: Vec<(String, Ty)>,
    /// Protocol outputs returned, in the functionality's order.
    pub outputs: Vec<(String, Ty)>,
}

/// Where a realization takes one protocol parameter from.
#[derive(Clone, Debug)]
pub enum ParamSource {
    /// A trait method argument (a functionality parameter).
    Arg(String),
    /// The length of a trait method argument (an input shaped by it).
    Len(String),
    /// A field of the realization struct (not a functionality parameter).
    Field,
}

/// One role's side of a sub-protocol call: a trait method implementing the
/// functionality role, declared in the functionality as
/// `impl Role = path::Trait::method(args) ;`.
#[derive(Clone, Debug)]
pub struct SubCall {
    /// Protocol role index.
    pub role: usize,
    /// Functionality role name.
    pub func_role: String,
    /// The trait path (the method path without its last segment).
    pub trait_path: String,
    /// The method name.
    pub method: String,
    /// Arguments after the channel: parameters and inputs.
    pub args: Vec<TExpr>,
    /// Outputs bound as `call.field` values, in declaration order.
    pub outputs: Vec<(String, Ty)>,
}

/// A run-time parameter.
#[derive(Clone, Debug)]
pub struct IrParam {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: Ty,
    /// The predicate and its source text.
    pub requires: Option<(TExpr, String)>,
    /// Marked `tuning` (performance only): not bound by the session
    /// binding.
    pub tuning: bool,
}

/// A checked two-party protocol, projected onto its roles.
#[derive(Clone, Debug)]
pub struct Ir {
    /// Protocol name.
    pub name: String,
    /// Role names.
    pub roles: Vec<String>,
    /// Compile-time constants.
    pub consts: Vec<(String, Ty, u128)>,
    /// Run-time parameters.
    pub params: Vec<IrParam>,
    /// Inputs per role.
    pub inputs: Vec<Vec<(String, Ty)>>,
    /// Outputs per role.
    pub outputs: Vec<Vec<(String, Ty)>>,
    /// Rounds in order.
    pub rounds: Vec<IrRound>,
    /// Sub-protocol calls in order.
    pub subs: Vec<IrSub>,
    /// The projection of each role.
    pub events: Vec<Vec<Event>>,
    /// Abort names with the text of (the first) check raising each.
    pub aborts: Vec<(String, String)>,
    /// Absolute paths of the files read (for `include_str!`).
    pub files: Vec<String>,
    /// The protocol's header location, `file:line`.
    pub location: String,
    /// The Rust path of each intrinsic, by name (a call names its
    /// intrinsic: two intrinsics may bind the same Rust path).
    pub intrinsic_paths: std::collections::BTreeMap<String, String>,
    /// `move` parameters of intrinsics, by name.
    pub moved_args: std::collections::BTreeMap<String, Vec<bool>>,
    /// Streamed kernels (intrinsics declared `chunked`): their Rust paths,
    /// by name. Called with `span, out` after the arguments.
    pub chunk_paths: std::collections::BTreeMap<String, String>,
    /// The heap memory of statements' values (`holding(bytes)` of the
    /// intrinsics they call), by statement: equal statements call the same
    /// intrinsics with the same arguments, so they hold the same.
    pub heaps: Vec<(TStmt, StmtHeap)>,
    /// Set when the protocol uses a feature code generation cannot emit yet.
    pub unsupported: Option<(Span, String)>,
    /// For an n-party protocol (`role P[n]`): the parameter holding the
    /// number of parties. Its only role is then the party array.
    pub party_count: Option<String>,
    /// For an n-party protocol: the steps, inputs and outputs of fixed
    /// parties (`at P[0]`).
    pub party_fixed: FixedParties,
    /// In an n-party protocol, the named role next to the party array
    /// (`role Dealer, role P[n]`), if any: `roles[1]`, recorded as the fixed
    /// party [`DEALER`]; its inputs and outputs are `inputs[1]`, `outputs[1]`.
    pub dealer: Option<String>,
    /// SHA-256 of the source files the protocol was compiled from (bound by
    /// the n-party session hello).
    pub spec_hash: [u8; 32],
    /// `realizes`: the functionality whose traits are generated.
    pub realizes: Option<IrRealizes>,
    /// `about { ... }`: what the protocol is, for the registry.
    pub about: Option<IrAbout>,
}

/// A protocol's `about` block, checked: every key known and given once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IrAbout {
    /// The family (`"OT extension"`, `"base OT"`, `"MPC"`, ...).
    pub family: String,
    /// The security label, as `SECURITY.md` states it.
    pub security: String,
    /// The published proof the label rests on (required for a malicious
    /// label; may be empty for a semi-honest one).
    pub proof: String,
    /// One paragraph saying what the protocol does (the facade module's doc).
    pub summary: String,
}
