//! Parsing `.otp` text into the syntax tree ([`crate::ast`]) with pest.
//! Parse errors are turned into located diagnostics in plain words.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::OnceLock;

mod grammar {
    #![allow(missing_docs)]
    //! The pest parser generated from `otp.pest`.
    #[derive(pest_derive::Parser)]
    #[grammar = "otp.pest"]
    pub struct OtpParser;
}
use grammar::{OtpParser, Rule};

/// Parses one file.
pub fn parse_file(text: &str, file: FileId) -> Result<crate::ast::File, Diagnostic> {
    let mut pairs = OtpParser::parse(Rule::file, text).map_err(|e| parse_error(e, file))?;
    let root = pairs.next().ok_or_else(|| Diagnostic::error(Span { file, start: 0, end: 0 }, "empty input"))?;
    let cx = Cx { file };
    let mut out = crate::ast::File::default();
    for pair in root.into_inner() {
        match pair.as_rule() {
            Rule::import => {
                let span = cx.span(&pair);
                let s = first(pair);
                let raw = s.as_str();
                out.imports.push((raw[1..raw.len() - 1].to_string(), span));
            }
            Rule::intrinsic_decl => out.intrinsics.push(cx.intrinsic(pair)),
            Rule::extern_type => {
                let mut it = pair.into_inner();
                let name = cx.ident(it.next());
                let path = it.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                out.extern_types.push(ExternType { name, path });
            }
            Rule::functionality => out.functionalities.push(cx.functionality(pair)),
            Rule::protocol => out.protocols.push(cx.protocol(pair)),
            _ => {}
        }
    }
    Ok(out)
}

fn first(pair: Pair<Rule>) -> Pair<Rule> {
    let mut inner = pair.clone().into_inner();
    inner.next().unwrap_or(pair)
}

/// Human words for grammar rules in "expected ..." messages.
pub(crate) fn rule_name(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::file | Rule::top_item => "`protocol`, `intrinsic`, `functionality`, `extern type` or `import`",
        Rule::import => "`import \"file.otp\";`",
        Rule::string => "a string in double quotes",
        Rule::intrinsic_decl => "an intrinsic declaration",
        Rule::sig_params | Rule::sig_param => "a parameter `name: Type`",
        Rule::rust_path => "a Rust path such as `crate::module::function`",
        Rule::extern_type => "`extern type Name = path;`",
        Rule::functionality => "a functionality declaration",
        Rule::func_item => "`param`, `input` or `output`",
        Rule::protocol => "a protocol declaration",
        Rule::extends => "`extends BaseProtocol`",
        Rule::role_list | Rule::role_decl => "a role declaration `role Name`",
        Rule::proto_item => "a protocol item (`const`, `param`, `input`, `output`, `at`, `round`, `do`, `insert`)",
        Rule::const_decl => "`const NAME: Type = value;`",
        Rule::param_decl => "`param name: Type;`",
        Rule::requires => "`requires <condition>`",
        Rule::io_decl => "`input Role { ... }` or `output Role { ... }`",
        Rule::io_kind => "`input` or `output`",
        Rule::field_list | Rule::field => "a field `name: Type`",
        Rule::at_block => "`at Role { ... }`",
        Rule::role_ref => "a role name",
        Rule::stmt => "a statement (`name = expression;` or `check ... else abort Name;`)",
        Rule::assign => "an assignment `name = expression;`",
        Rule::check_stmt => "`check <condition> else abort ErrorName;`",
        Rule::round => "a round `round name: From -> To : Message { fields }`",
        Rule::round_target => "a receiving role or `all`",
        Rule::all_roles => "`all`",
        Rule::transport => "`chunked(by = n)`",
        Rule::round_body => "a round body `{ at Role { ... } }`",
        Rule::do_stmt => "a sub-protocol call `do name: Functionality[...](Role = Role, ...);`",
        Rule::param_binds | Rule::param_bind => "a parameter binding `name = value`",
        Rule::role_binds | Rule::role_bind => "a role binding `FunctionalityRole = ProtocolRole`",
        Rule::do_inputs | Rule::input_bind => "an input binding `Role.field = value`",
        Rule::insert => "`insert after round { ... }`",
        Rule::insert_where => "`after` or `before`",
        Rule::ty | Rule::array_ty | Rule::named_ty => "a type",
        Rule::expr | Rule::primary => "an expression",
        Rule::infix
        | Rule::or_op
        | Rule::and_op
        | Rule::eq_op
        | Rule::ne_op
        | Rule::le_op
        | Rule::ge_op
        | Rule::lt_op
        | Rule::gt_op
        | Rule::bor_op
        | Rule::bxor_op
        | Rule::band_op
        | Rule::add_op
        | Rule::sub_op
        | Rule::mul_op
        | Rule::div_op
        | Rule::rem_op => "an operator",
        Rule::prefix | Rule::not_op | Rule::neg_op => "`!` or `-`",
        Rule::postfix | Rule::index | Rule::member => "`[index]` or `.field`",
        Rule::paren => "a parenthesized expression",
        Rule::sample => "`sample Type`",
        Rule::comprehension => "a comprehension `[e for i in 0..n]`",
        Rule::array_lit => "an array `[a, b]`",
        Rule::call => "a call `f(args)`",
        Rule::int_lit => "an integer",
        Rule::bool_lit => "`true` or `false`",
        Rule::keyword => "a keyword",
        Rule::ident => "a name",
        _ => "something else",
    }
}

fn parse_error(e: pest::error::Error<Rule>, file: FileId) -> Diagnostic {
    use pest::error::{ErrorVariant, InputLocation};
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let span = Span { file, start: pos as u32, end: pos as u32 + 1 };
    let (message, help) = match &e.variant {
        ErrorVariant::ParsingError { positives, negatives } => {
            let mut names: Vec<&str> = positives.iter().map(rule_name).collect();
            names.sort_unstable();
            names.dedup();
            let expected = match names.len() {
                0 => "something else".to_string(),
                1 => names[0].to_string(),
                _ => {
                    let (last, rest) = names.split_last().unwrap_or((&"", &[]));
                    format!("{} or {}", rest.join(", "), last)
                }
            };
            let mut m = format!("syntax error: expected {expected}");
            if !negatives.is_empty() {
                let un: Vec<&str> = negatives.iter().map(rule_name).collect();
                m.push_str(&format!(" (not {})", un.join(", ")));
            }
            (m, "see the grammar summary in README.md, section \"The .otp language\"".to_string())
        }
        ErrorVariant::CustomError { message } => (message.clone(), String::new()),
    };
    let d = Diagnostic::error(span, message);
    if help.is_empty() {
        d
    } else {
        d.with_help(help)
    }
}

fn pratt() -> &'static PrattParser<Rule> {
    static P: OnceLock<PrattParser<Rule>> = OnceLock::new();
    P.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or_op, Assoc::Left))
            .op(Op::infix(Rule::and_op, Assoc::Left))
            .op(Op::infix(Rule::eq_op, Assoc::Left)
                | Op::infix(Rule::ne_op, Assoc::Left)
                | Op::infix(Rule::lt_op, Assoc::Left)
                | Op::infix(Rule::le_op, Assoc::Left)
                | Op::infix(Rule::gt_op, Assoc::Left)
                | Op::infix(Rule::ge_op, Assoc::Left))
            .op(Op::infix(Rule::bor_op, Assoc::Left))
            .op(Op::infix(Rule::bxor_op, Assoc::Left))
            .op(Op::infix(Rule::band_op, Assoc::Left))
            .op(Op::infix(Rule::add_op, Assoc::Left) | Op::infix(Rule::sub_op, Assoc::Left))
            .op(Op::infix(Rule::mul_op, Assoc::Left)
                | Op::infix(Rule::div_op, Assoc::Left)
                | Op::infix(Rule::rem_op, Assoc::Left))
            .op(Op::prefix(Rule::not_op) | Op::prefix(Rule::neg_op))
            .op(Op::postfix(Rule::index) | Op::postfix(Rule::member))
    })
}

struct Cx {
    file: FileId,
}

impl Cx {
    fn span(&self, p: &Pair<Rule>) -> Span {
        let s = p.as_span();
        Span { file: self.file, start: s.start() as u32, end: s.end() as u32 }
    }

    fn ident(&self, p: Option<Pair<Rule>>) -> Ident {
        match p {
            Some(p) => Ident { name: p.as_str().to_string(), span: self.span(&p) },
            None => Ident { name: String::new(), span: Span { file: self.file, start: 0, end: 0 } },
        }
    }

    fn intrinsic(&self, pair: Pair<Rule>) -> IntrinsicDecl {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let name = self.ident(it.next());
        let mut params = Vec::new();
        let mut ret = None;
        let mut path = String::new();
        for p in it {
            match p.as_rule() {
                Rule::sig_params => {
                    for sp in p.into_inner() {
                        let mut f = sp.into_inner();
                        let n = self.ident(f.next());
                        let t = self.ty(f.next());
                        params.push(Field { name: n, ty: t });
                    }
                }
                Rule::ty => ret = Some(self.ty(Some(p))),
                Rule::rust_path => path = p.as_str().to_string(),
                _ => {}
            }
        }
        IntrinsicDecl { name, params, ret: ret.unwrap_or_else(|| self.ty(None)), path, span }
    }

    fn functionality(&self, pair: Pair<Rule>) -> Functionality {
        let mut it = pair.into_inner();
        let name = self.ident(it.next());
        let mut f = Functionality { name, roles: vec![], params: vec![], io: vec![] };
        for p in it {
            match p.as_rule() {
                Rule::role_list => f.roles = self.roles(p),
                Rule::param_decl => f.params.push(self.param(p)),
                Rule::io_decl => f.io.push(self.io(p)),
                _ => {}
            }
        }
        f
    }

    fn roles(&self, pair: Pair<Rule>) -> Vec<RoleDecl> {
        pair.into_inner()
            .map(|r| {
                let mut it = r.into_inner();
                let name = self.ident(it.next());
                let count = it.next().map(|e| self.expr(e));
                RoleDecl { name, count }
            })
            .collect()
    }

    fn protocol(&self, pair: Pair<Rule>) -> Protocol {
        let whole = self.span(&pair);
        let mut it = pair.into_inner();
        let name = self.ident(it.next());
        let mut proto = Protocol { span: name.span.to(Span { end: name.span.end, ..whole }), name, roles: vec![], extends: None, items: vec![] };
        proto.span.start = whole.start;
        for p in it {
            match p.as_rule() {
                Rule::role_list => proto.roles = self.roles(p),
                Rule::extends => proto.extends = Some(self.ident(p.into_inner().next())),
                _ => {
                    if let Some(item) = self.item(p) {
                        proto.items.push(item);
                    }
                }
            }
        }
        proto
    }

    fn item(&self, p: Pair<Rule>) -> Option<Item> {
        Some(match p.as_rule() {
            Rule::const_decl => {
                let mut it = p.into_inner();
                let name = self.ident(it.next());
                let ty = self.ty(it.next());
                let value = self.expr_opt(it.next());
                let requires = it.next().map(|r| self.expr_opt(r.into_inner().next()));
                Item::Const(ConstDecl { name, ty, value, requires })
            }
            Rule::param_decl => Item::Param(self.param(p)),
            Rule::io_decl => Item::Io(self.io(p)),
            Rule::at_block => Item::At(self.at_block(p)),
            Rule::round => Item::Round(self.round(p)),
            Rule::do_stmt => Item::Do(self.do_stmt(p)),
            Rule::insert => {
                let span = self.span(&p);
                let mut it = p.into_inner();
                let after = it.next().map(|w| w.as_str() == "after").unwrap_or(true);
                let anchor = self.ident(it.next());
                let items = it.filter_map(|i| self.item(i)).collect();
                Item::Insert(Insert { after, anchor, items, span: Span { end: span.start + 6, ..span } })
            }
            _ => return None,
        })
    }

    fn param(&self, p: Pair<Rule>) -> ParamDecl {
        let mut it = p.into_inner();
        let name = self.ident(it.next());
        let ty = self.ty(it.next());
        let requires = it.next().map(|r| self.expr_opt(r.into_inner().next()));
        ParamDecl { name, ty, requires }
    }

    fn io(&self, p: Pair<Rule>) -> IoDecl {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let kind = match it.next().map(|k| k.as_str().to_string()).as_deref() {
            Some("output") => IoKind::Output,
            _ => IoKind::Input,
        };
        let role = self.role_ref(it.next());
        let fields = it.next().map(|f| self.fields(f)).unwrap_or_default();
        IoDecl { kind, role, fields, span }
    }

    fn fields(&self, p: Pair<Rule>) -> Vec<Field> {
        p.into_inner()
            .map(|f| {
                let mut it = f.into_inner();
                let name = self.ident(it.next());
                let ty = self.ty(it.next());
                Field { name, ty }
            })
            .collect()
    }

    fn role_ref(&self, p: Option<Pair<Rule>>) -> RoleRef {
        match p {
            Some(p) => {
                let mut it = p.into_inner();
                let name = self.ident(it.next());
                let index = it.next().map(|e| self.expr(e));
                RoleRef { name, index }
            }
            None => RoleRef { name: self.ident(None), index: None },
        }
    }

    fn at_block(&self, p: Pair<Rule>) -> AtBlock {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let role = self.role_ref(it.next());
        let stmts = it
            .map(|s| {
                let sspan = self.span(&s);
                match s.as_rule() {
                    Rule::check_stmt => {
                        let mut si = s.into_inner();
                        let cond = self.expr_opt(si.next());
                        let abort = self.ident(si.next());
                        Stmt::Check { cond, abort, span: sspan }
                    }
                    _ => {
                        let mut si = s.into_inner();
                        let name = self.ident(si.next());
                        let value = self.expr_opt(si.next());
                        Stmt::Assign { name, value }
                    }
                }
            })
            .collect();
        AtBlock { role, stmts, span }
    }

    fn round(&self, p: Pair<Rule>) -> Round {
        let whole = self.span(&p);
        let mut it = p.into_inner();
        let name = self.ident(it.next());
        let from = self.role_ref(it.next());
        let to = match it.next() {
            Some(t) => {
                let inner = first(t);
                if inner.as_rule() == Rule::all_roles {
                    Target::All(self.span(&inner))
                } else {
                    Target::Role(self.role_ref(Some(inner)))
                }
            }
            None => Target::All(whole),
        };
        let msg = self.ident(it.next());
        let mut r = Round { name, from, to, msg, fields: vec![], chunk_by: None, body: vec![], span: whole };
        for q in it {
            match q.as_rule() {
                Rule::field_list => {
                    r.fields = self.fields(q.clone());
                    r.span.end = self.span(&q).end + 1;
                }
                Rule::transport => r.chunk_by = Some(self.expr_opt(q.into_inner().next())),
                Rule::round_body => r.body = q.into_inner().map(|a| self.at_block(a)).collect(),
                _ => {}
            }
        }
        // The header ends with the message's closing brace; keep diagnostics on one line.
        r.span.end = r.span.end.min(r.msg.span.end);
        r
    }

    fn do_stmt(&self, p: Pair<Rule>) -> DoStmt {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let name = self.ident(it.next());
        let func = self.ident(it.next());
        let mut d = DoStmt { name, func, params: vec![], roles: vec![], inputs: vec![], span };
        for q in it {
            match q.as_rule() {
                Rule::param_binds => {
                    for b in q.into_inner() {
                        let mut bi = b.into_inner();
                        let n = self.ident(bi.next());
                        let e = self.expr_opt(bi.next());
                        d.params.push((n, e));
                    }
                }
                Rule::role_binds => {
                    for b in q.into_inner() {
                        let mut bi = b.into_inner();
                        let n = self.ident(bi.next());
                        let r = self.role_ref(bi.next());
                        d.roles.push((n, r));
                    }
                }
                Rule::do_inputs => {
                    for b in q.into_inner() {
                        let mut bi = b.into_inner();
                        let role = self.ident(bi.next());
                        let field = self.ident(bi.next());
                        let e = self.expr_opt(bi.next());
                        d.inputs.push((role, field, e));
                    }
                }
                _ => {}
            }
        }
        d
    }

    fn ty(&self, p: Option<Pair<Rule>>) -> Type {
        let Some(p) = p else {
            return Type { kind: TypeKind::Named(self.ident(None), vec![]), span: Span { file: self.file, start: 0, end: 0 } };
        };
        let span = self.span(&p);
        let inner = if p.as_rule() == Rule::ty { first(p) } else { p };
        match inner.as_rule() {
            Rule::array_ty => {
                let mut it = inner.into_inner();
                let elem = self.ty(it.next());
                let len = self.expr_opt(it.next());
                Type { kind: TypeKind::Array(Box::new(elem), Box::new(len)), span }
            }
            _ => {
                let mut it = inner.into_inner();
                let name = self.ident(it.next());
                let args = it.map(|e| self.expr(e)).collect();
                Type { kind: TypeKind::Named(name, args), span }
            }
        }
    }

    fn expr_opt(&self, p: Option<Pair<Rule>>) -> Expr {
        match p {
            Some(p) => self.expr(p),
            None => Expr { kind: ExprKind::Int(0), span: Span { file: self.file, start: 0, end: 0 } },
        }
    }

    fn expr(&self, p: Pair<Rule>) -> Expr {
        let file = self.file;
        pratt()
            .map_primary(|prim| self.primary(prim))
            .map_prefix(|op, rhs| {
                let span = self.span(&op).to(rhs.span);
                let u = if op.as_rule() == Rule::not_op { UnOp::Not } else { UnOp::Neg };
                Expr { kind: ExprKind::Unary(u, Box::new(rhs)), span }
            })
            .map_postfix(|lhs, op| {
                let span = lhs.span.to(self.span(&op));
                match op.as_rule() {
                    Rule::index => {
                        let idx = self.expr_opt(op.into_inner().next());
                        Expr { kind: ExprKind::Index(Box::new(lhs), Box::new(idx)), span }
                    }
                    _ => {
                        let name = self.ident(op.into_inner().next());
                        Expr { kind: ExprKind::Member(Box::new(lhs), name), span }
                    }
                }
            })
            .map_infix(|lhs, op, rhs| {
                let span = lhs.span.to(rhs.span);
                let b = match op.as_rule() {
                    Rule::or_op => BinOp::Or,
                    Rule::and_op => BinOp::And,
                    Rule::eq_op => BinOp::Eq,
                    Rule::ne_op => BinOp::Ne,
                    Rule::lt_op => BinOp::Lt,
                    Rule::le_op => BinOp::Le,
                    Rule::gt_op => BinOp::Gt,
                    Rule::ge_op => BinOp::Ge,
                    Rule::bor_op => BinOp::BitOr,
                    Rule::bxor_op => BinOp::BitXor,
                    Rule::band_op => BinOp::BitAnd,
                    Rule::add_op => BinOp::Add,
                    Rule::sub_op => BinOp::Sub,
                    Rule::mul_op => BinOp::Mul,
                    Rule::div_op => BinOp::Div,
                    _ => BinOp::Rem,
                };
                let _ = file;
                Expr { kind: ExprKind::Binary(b, Box::new(lhs), Box::new(rhs)), span }
            })
            .parse(p.into_inner())
    }

    fn primary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::int_lit => ExprKind::Int(p.as_str().replace('_', "").parse().unwrap_or(u128::MAX)),
            Rule::bool_lit => ExprKind::Bool(p.as_str() == "true"),
            Rule::ident => ExprKind::Var(p.as_str().to_string()),
            Rule::paren => return self.expr_opt(p.into_inner().next()),
            Rule::sample => ExprKind::Sample(self.ty(p.into_inner().next())),
            Rule::comprehension => {
                let mut it = p.into_inner();
                let body = self.expr_opt(it.next());
                let var = self.ident(it.next());
                let lo = self.expr_opt(it.next());
                let hi = self.expr_opt(it.next());
                ExprKind::Comprehension { body: Box::new(body), var, lo: Box::new(lo), hi: Box::new(hi) }
            }
            Rule::array_lit => ExprKind::Array(p.into_inner().map(|e| self.expr(e)).collect()),
            Rule::call => {
                let mut it = p.into_inner();
                let name = self.ident(it.next());
                ExprKind::Call(name, it.map(|e| self.expr(e)).collect())
            }
            Rule::expr => return self.expr(p),
            _ => ExprKind::Int(0),
        };
        Expr { kind, span }
    }
}
