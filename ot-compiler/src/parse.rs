//! Parsing `.otp` text into the syntax tree ([`crate::ast`]) with pest.
//! Parse errors are turned into located diagnostics in plain words.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::OnceLock;

mod hints;
mod unclosed;

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
    // Track literal tokens too, so errors point at the exact spot (`->` expected here).
    pest::set_error_detail(true);
    check_brackets(text, file)?;
    let mut pairs = OtpParser::parse(Rule::file, text).map_err(|e| {
        let d = parse_error(e, file, text);
        unclosed::find(text, file, d.span.start as usize).unwrap_or(d)
    })?;
    let root = pairs.next().ok_or_else(|| {
        Diagnostic::error(
            Span {
                file,
                start: 0,
                end: 0,
            },
            "empty input",
        )
    })?;
    check_depth(root.clone(), file)?;
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
                let path = it.next().map(|p| rust_path(p.as_str())).unwrap_or_default();
                out.extern_types.push(ExternType { name, path });
            }
            Rule::functionality => out.functionalities.push(cx.functionality(pair)),
            Rule::protocol => out.protocols.push(cx.protocol(pair)),
            _ => {}
        }
    }
    Ok(out)
}

/// Parses one file, recovering from syntax errors per top-level item: when
/// the file does not parse, it is split at its top-level items (`protocol`,
/// `intrinsic`, `functionality`, `extern type`, `import` outside any
/// bracket) and each is parsed on its own, so one broken item does not hide
/// the errors or the declarations of the others. Returns what parsed and
/// the errors, in source order.
pub fn parse_file_recovering(text: &str, file: FileId) -> (crate::ast::File, Vec<Diagnostic>) {
    let first = match parse_file(text, file) {
        Ok(f) => return (f, vec![]),
        Err(d) => d,
    };
    let starts = item_starts(text);
    if starts.len() == 1 {
        // One item: recover inside its body.
        let mut out = crate::ast::File::default();
        out.broken.extend(item_name(text));
        return (out, body_errors(text, 0, file, first));
    }
    // Each item is parsed with the text before it blanked (so positions
    // stay those of the file): linear per item, so only for a modest count.
    if starts.len() > 256 {
        let mut out = crate::ast::File::default();
        out.broken
            .extend(starts.iter().filter_map(|&s| item_name(&text[s..])));
        return (out, vec![first]);
    }
    let mut out = crate::ast::File::default();
    let mut errors = vec![];
    let mut padded = String::with_capacity(text.len());
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        padded.clear();
        padded.extend(
            text[..start]
                .bytes()
                .map(|b| if b == b'\n' { '\n' } else { ' ' }),
        );
        padded.push_str(&text[start..end]);
        match parse_file(&padded, file) {
            Ok(f) => {
                out.imports.extend(f.imports);
                out.intrinsics.extend(f.intrinsics);
                out.extern_types.extend(f.extern_types);
                out.functionalities.extend(f.functionalities);
                out.protocols.extend(f.protocols);
            }
            Err(d) => {
                out.broken.extend(item_name(&text[start..end]));
                errors.extend(body_errors(&text[start..end], start, file, d));
            }
        }
    }
    if errors.is_empty() {
        // The split found nothing wrong on its own: report the whole-file error.
        errors.push(first);
    }
    (out, errors)
}

/// The syntax errors of a broken top-level item at `offset`: `first` (the
/// item's own, earliest error), then the errors of the protocol items after
/// the one holding it, each parsed on its own (and, in a broken `at` block
/// or round body, each statement on its own), so independent mistakes in
/// later rounds and statements are reported together.
fn body_errors(item: &str, offset: usize, file: FileId, first: Diagnostic) -> Vec<Diagnostic> {
    let Some(open) = body_start(item) else {
        return vec![first];
    };
    if unclosed::is_unclosed(&first) {
        return vec![first];
    }
    let body_end = item
        .trim_end()
        .strip_suffix('}')
        .map_or(item.len(), str::len);
    if body_end <= open {
        return vec![first];
    }
    let body = &item[open + 1..body_end];
    let base = offset + open + 1;
    let starts = starts_of(body, PROTO_ITEMS);
    let mut errors = vec![first];
    let after = errors[0].span.start as usize;
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(body.len());
        let chunk = &body[s..e];
        // Before the first item: blank or comments (an error there is `first`).
        if k == 0 || base + e <= after {
            continue;
        }
        if base + s <= after {
            // The item holding the first error: later statements of its block.
            let more = stmt_errors(chunk, base + s, file, errors[0].clone());
            errors.extend(more.into_iter().skip(1));
            continue;
        }
        if let Err(err) = OtpParser::parse(Rule::item_probe, chunk) {
            let d = shifted(parse_error(err, file, chunk), base + s);
            errors.extend(stmt_errors(chunk, base + s, file, d));
        }
    }
    errors
}

/// In a broken `at` block or round body (`chunk` at `offset`): the
/// statements of its innermost block, each parsed on its own; `first` when
/// that finds nothing more.
fn stmt_errors(chunk: &str, offset: usize, file: FileId, first: Diagnostic) -> Vec<Diagnostic> {
    let at = first.span.start as usize - offset;
    // The block holding the error: the last `{` before it.
    let Some(open) = chunk[..at.min(chunk.len())].rfind('{') else {
        return vec![first];
    };
    let mut errors = vec![first];
    let mut s = open + 1;
    let b = chunk.as_bytes();
    let mut depth = 0i64;
    for i in open + 1..b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth -= 1,
            b'}' if depth == 0 => break,
            b'}' => depth -= 1,
            b';' if depth == 0 => {
                let stmt = &chunk[s..=i];
                if s > at && !stmt.trim().is_empty() {
                    if let Err(err) = OtpParser::parse(Rule::stmt_probe, stmt) {
                        errors.push(shifted(parse_error(err, file, stmt), offset + s));
                    }
                }
                s = i + 1;
            }
            _ => {}
        }
    }
    errors
}

/// `d`, found in a piece of text starting at byte `by` of the file.
fn shifted(mut d: Diagnostic, by: usize) -> Diagnostic {
    d.span.start += by as u32;
    d.span.end += by as u32;
    d
}

/// The `{` opening a protocol's body (not one of `realizes ... with { }`).
fn body_start(item: &str) -> Option<usize> {
    if !item.trim_start().starts_with("protocol") {
        return None;
    }
    let b = item.as_bytes();
    let mut depth = 0i64;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 => {
                if !item[..i].trim_end().ends_with("with") {
                    return Some(i);
                }
                depth += 1;
            }
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Byte offsets where top-level items start: a keyword that begins an item,
/// outside brackets, strings and comments. The first item starts at 0 (so
/// leading text that is not an item is parsed with it).
fn item_starts(text: &str) -> Vec<usize> {
    const KEYWORDS: [&str; 5] = ["protocol", "intrinsic", "functionality", "extern", "import"];
    starts_of(text, &KEYWORDS)
}

/// Byte offsets where a word of `keywords` stands outside brackets,
/// strings and comments (and 0).
fn starts_of(text: &str, keywords: &[&str]) -> Vec<usize> {
    let b = text.as_bytes();
    let mut starts = vec![0];
    let (mut depth, mut i) = (0i64, 0);
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        if let Some(end) = skip_trivia(b, i) {
            i = end + 1;
            continue;
        }
        match b[i] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => depth -= 1,
            c if depth <= 0 && word(c) && (i == 0 || !word(b[i - 1])) => {
                let mut j = i;
                while j < b.len() && word(b[j]) {
                    j += 1;
                }
                if keywords.contains(&&text[i..j]) && i > 0 {
                    starts.push(i);
                    // A stray closing bracket must not shift the next item.
                    depth = 0;
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    starts
}

/// The name a top-level item declares (`protocol Name`, `extern type Name`).
fn item_name(item: &str) -> Option<String> {
    let mut words = item
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty());
    let kw = words.next()?;
    let name = match kw {
        "extern" => words.nth(1),
        "import" => None,
        _ => words.next(),
    };
    name.map(str::to_string)
}

/// A Rust path as written, without the spaces the grammar allows around `::`.
fn rust_path(text: &str) -> String {
    text.split_whitespace().collect()
}

fn first(pair: Pair<Rule>) -> Pair<Rule> {
    let mut inner = pair.clone().into_inner();
    inner.next().unwrap_or(pair)
}

/// How deep brackets and expressions may nest: parentheses, brackets,
/// braces and prefix operators (`!!x`) each count one level, so 256
/// levels of parentheses inside a protocol's `at` block are accepted.
/// Binary operators do not nest: a chain `a ^ b ^ c ^ ...` of any length is
/// one level. Beyond the limit the input is rejected (with its location)
/// before anything recurses over it.
pub const MAX_NESTING: usize = 300;

/// The stack the compiler's recursive passes run on (parser, checker, code
/// generation; they recurse once per nesting level and once per operand of
/// an operator chain). Reserved, not committed: untouched pages cost no
/// memory.
const COMPILER_STACK: usize = 256 << 20;

/// Runs `f` (a whole compilation) on the compiler's own large stack.
pub(crate) fn on_compiler_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::grow(COMPILER_STACK, f)
}

/// Runs `f`, a step of a recursive pass, growing the stack first when
/// little is left (for passes run outside [`on_compiler_stack`]).
pub(crate) fn deep<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(256 * 1024, 16 << 20, f)
}

fn too_deep(file: FileId, at: usize) -> Diagnostic {
    Diagnostic::error(
        Span {
            file,
            start: at as u32,
            end: at as u32 + 1,
        },
        format!("this is nested too deeply for the compiler (more than {MAX_NESTING} levels)"),
    )
    .with_help("split the expression into several assignments")
}

/// At a comment or string starting at `i`: the index of its last byte.
fn skip_trivia(b: &[u8], mut i: usize) -> Option<usize> {
    match b[i] {
        b'/' if b.get(i + 1) == Some(&b'/') => {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        }
        b'/' if b.get(i + 1) == Some(&b'*') => {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 1;
        }
        b'"' => {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
        }
        _ => return None,
    }
    Some(i)
}

/// Rejects bracket nesting beyond [`MAX_NESTING`] with a plain scan of the
/// text (outside comments and strings), before the parser recurses into it.
fn check_brackets(text: &str, file: FileId) -> Result<(), Diagnostic> {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while i < b.len() {
        if let Some(end) = skip_trivia(b, i) {
            i = end + 1;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep(file, i));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Rejects expressions nested too deeply, before anything recurses over
/// them: each expression (a parenthesized one, an index, an argument) and
/// each prefix operator is a level; the operands of a binary operator chain
/// are not (the chain is flat in the text).
fn check_depth(root: Pair<Rule>, file: FileId) -> Result<(), Diagnostic> {
    let mut stack = vec![(root, 0usize)];
    while let Some((pair, depth)) = stack.pop() {
        let depth = match pair.as_rule() {
            Rule::expr => {
                // The longest run of prefix operators on one operand.
                let (mut run, mut longest) = (0, 0);
                for p in pair.clone().into_inner() {
                    run = match p.as_rule() {
                        Rule::not_op | Rule::neg_op => run + 1,
                        _ => 0,
                    };
                    longest = longest.max(run);
                }
                depth + 1 + longest
            }
            _ => depth,
        };
        if depth > MAX_NESTING {
            return Err(too_deep(file, pair.as_span().start()));
        }
        stack.extend(pair.into_inner().map(|p| (p, depth)));
    }
    Ok(())
}

/// Human words for grammar rules in "expected ..." messages.
pub(crate) fn rule_name(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::file | Rule::top_item => {
            "`protocol`, `intrinsic`, `functionality`, `extern type` or `import`"
        }
        Rule::import => "`import \"file.otp\";`",
        Rule::string => "a string in double quotes",
        Rule::intrinsic_decl => "an intrinsic declaration",
        Rule::holding => "`holding(bytes)`",
        Rule::sig_params | Rule::sig_param => "a parameter `name: Type`",
        Rule::rust_path => "a Rust path such as `crate::module::function`",
        Rule::extern_type => "`extern type Name = path;`",
        Rule::functionality => "a functionality declaration",
        Rule::func_item => "`param`, `input` or `output`",
        Rule::protocol => "a protocol declaration",
        Rule::extends => "`extends BaseProtocol`",
        Rule::realizes => "`realizes Functionality(FRole = Role, ...)`",
        Rule::about => "an `about { ... }` block",
        Rule::about_entry => "`key = \"text\";`",
        Rule::func_error => "`error = path::ErrorType;`",
        Rule::role_list | Rule::role_decl => "a role declaration `role Name`",
        Rule::proto_item => {
            "a protocol item (`const`, `param`, `input`, `output`, `at`, `round`, `do`, `insert`, `omit`)"
        }
        Rule::const_decl => "`const NAME: Type = value;`",
        Rule::param_decl => "`param name: Type;`",
        Rule::requires => "`requires <condition>`",
        Rule::tuning => "`tuning`",
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
        Rule::unchecked => "`unchecked`",
        Rule::transport => "`chunked(by = n)`",
        Rule::round_body => "a round body `{ at Role { ... } }`",
        Rule::do_stmt => "a sub-protocol call `do name: Functionality[...](Role = Role, ...);`",
        Rule::param_binds | Rule::param_bind => "a parameter binding `name = value`",
        Rule::role_binds | Rule::role_bind => "a role binding `FunctionalityRole = ProtocolRole`",
        Rule::do_inputs | Rule::input_bind => "an input binding `Role.field = value`",
        Rule::insert => "`insert after round { ... }`",
        Rule::insert_where => "`after` or `before`",
        Rule::omit | Rule::omit_kw => "`omit name;`",
        _ => expr_rule_name(rule),
    }
}

/// Human words for the type, expression and token rules (see [`rule_name`]).
fn expr_rule_name(rule: &Rule) -> &'static str {
    match rule {
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
        | Rule::rem_op
        | Rule::shl_op
        | Rule::shr_op => "an operator",
        Rule::prefix | Rule::not_op | Rule::neg_op => "`!` or `-`",
        Rule::postfix | Rule::index | Rule::member => "`[index]` or `.field`",
        Rule::cast | Rule::as_kw => "a cast `as T`",
        Rule::int_suffix => "an integer suffix (`u64`, `u32`, `u8`, `usize`)",
        Rule::paren => "a parenthesized expression",
        Rule::sample => "`sample Type`",
        Rule::comprehension => "a comprehension `[e for i in 0..n]`",
        Rule::array_lit | Rule::list_tail => "an array `[a, b]`",
        Rule::call => "a call `f(args)`",
        Rule::int_lit => "an integer",
        Rule::bool_lit => "`true` or `false`",
        Rule::keyword => "a keyword",
        Rule::ident => "a name",
        _ => "something else",
    }
}

fn parse_error(e: pest::error::Error<Rule>, file: FileId, text: &str) -> Diagnostic {
    use pest::error::InputLocation;
    let rule_pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let (pos, mut literal) = farthest_expected(&e, rule_pos, text);

    // A keyword where a name belongs: `in = ...`, `round all: ...`.
    let word_start = text[..pos]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map(|i| i + text[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    let before = &text[word_start..pos];
    if let Some(d) = keyword_as_name(file, before, pos, &literal) {
        return d;
    }
    if let Some(d) = nesting_limit(&e, file, rule_pos) {
        return d;
    }
    // Right after a name or number, letters and digits would only continue it.
    if !before.is_empty()
        && literal
            .iter()
            .any(|t| !matches!(t, Tok::Range) && !matches!(t, Tok::Lit(l) if l == "_"))
    {
        literal.retain(|t| !matches!(t, Tok::Range) && !matches!(t, Tok::Lit(l) if l == "_"));
    }
    if let Some(d) = non_ascii_name(file, text, pos) {
        return d;
    }
    let found = found_at(text, pos);
    if let Some(d) = missing_semicolon(file, text, pos, &literal, &found) {
        return d;
    }
    let expected = expected_text(&e, &literal);
    if let Some(d) = known_mistake(file, text, pos, &literal, (&found, &expected)) {
        return d;
    }
    let found_len = if pos >= text.len() {
        1
    } else {
        found.len().max(1)
    };
    let span = Span {
        file,
        start: pos as u32,
        end: (pos + found_len) as u32,
    };
    let shown = if pos >= text.len() {
        "end of file".to_string()
    } else if found.trim().is_empty() {
        "a space".to_string()
    } else {
        format!("`{found}`")
    };
    let message = format!("syntax error: expected {expected}, found {shown}");
    let help = syntax_help(text, pos, &found, &literal);
    Diagnostic::error(span, message).with_help(help)
}

/// A mistake of [`hints`] where the grammar stopped, with its own help
/// (`found`: the token there, and what was expected, in words).
fn known_mistake(
    file: FileId,
    text: &str,
    pos: usize,
    literal: &[Tok],
    (found, words): (&str, &str),
) -> Option<Diagnostic> {
    let expected: Vec<&str> = literal
        .iter()
        .filter_map(|t| match t {
            Tok::Lit(l) => Some(l.as_str()),
            Tok::Range => None,
        })
        .collect();
    let stop = hints::Stop {
        text,
        pos,
        found,
        expected: &expected,
    };
    let h = hints::hint(&stop)?;
    let shown = if found.is_empty() {
        "end of file".to_string()
    } else {
        format!("`{found}`")
    };
    let message = h
        .message
        .unwrap_or_else(|| format!("syntax error: expected {words}, found {shown}"));
    let span = Span {
        file,
        start: h.start as u32,
        end: h.end.min(text.len()).max(h.start) as u32,
    };
    Some(Diagnostic::error(span, message).with_help(h.help))
}

/// A letter outside ASCII where the grammar stopped (`α = x;`): names are
/// ASCII, which a bare "found `α`" would not say.
fn non_ascii_name(file: FileId, text: &str, pos: usize) -> Option<Diagnostic> {
    let c = text.get(pos..)?.chars().next()?;
    if c.is_ascii() || !c.is_alphanumeric() {
        return None;
    }
    let span = Span {
        file,
        start: pos as u32,
        end: (pos + c.len_utf8()) as u32,
    };
    Some(
        Diagnostic::error(
            span,
            format!("syntax error: `{c}` is not an ASCII letter; names are ASCII letters, digits and `_`"),
        )
        .with_help("rename it in ASCII (e.g. `alpha` for `α`, `delta` for `Δ`)"),
    )
}

/// A statement whose `;` is missing at the end of its line: the grammar
/// stops at the next line's first token, but the mistake is at the end of
/// the line before, where the error then points.
fn missing_semicolon(
    file: FileId,
    text: &str,
    pos: usize,
    literal: &[Tok],
    found: &str,
) -> Option<Diagnostic> {
    if !literal.iter().any(|t| matches!(t, Tok::Lit(l) if l == ";")) {
        return None;
    }
    let pos = pos.min(text.len());
    let prev = text[..pos].trim_end();
    if prev.is_empty() || !text[prev.len()..pos].contains('\n') {
        return None;
    }
    let (last, ch) = prev.char_indices().last()?;
    let word_start = prev
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + prev[i..].chars().next().map_or(1, char::len_utf8)
        });
    let after = if word_start < prev.len() {
        &prev[word_start..]
    } else {
        &prev[last..]
    };
    let span = Span {
        file,
        start: last as u32,
        end: (last + ch.len_utf8()) as u32,
    };
    let help = match found {
        "" => "end it with `;` (the file ends after it)".to_string(),
        _ => format!("end the statement with `;` (the next line starts with `{found}`, which cannot continue it)"),
    };
    Some(
        Diagnostic::error(
            span,
            format!("syntax error: expected `;` after `{after}`, at the end of the line"),
        )
        .with_help(help),
    )
}

/// Where a syntax error is, and the literal tokens expected there.
fn farthest_expected(
    e: &pest::error::Error<Rule>,
    rule_pos: usize,
    text: &str,
) -> (usize, Vec<Tok>) {
    // With error detail on, pest reports the farthest position reached and
    // the literal tokens it expected there (`->`, `;`), which is where the
    // mistake is; the rule-level position is the start of the failed item.
    let attempts = e.parse_attempts().filter(|a| a.max_position >= rule_pos);
    let mut pos = attempts
        .as_ref()
        .map(|a| a.max_position)
        .unwrap_or(rule_pos)
        .min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let literal: Vec<Tok> = attempts
        .as_ref()
        .map(|a| {
            a.expected_tokens()
                .into_iter()
                .filter_map(|t| {
                    // `ParsingToken` is not nameable outside pest; classify by its Debug form.
                    let debug = format!("{t:?}");
                    if debug.starts_with("Range") {
                        return Some(Tok::Range);
                    }
                    if debug.starts_with("BuiltInRule") {
                        return None;
                    }
                    let token = t.to_string();
                    (!matches!(token.as_str(), " " | "\t" | "\n" | "\r" | "//" | "/*"))
                        .then_some(Tok::Lit(token))
                })
                .collect()
        })
        .unwrap_or_default();
    (pos, literal)
}

/// The error for the keyword `before` (ending at `pos`) written where
/// only a name may go, if that is the mistake.
fn keyword_as_name(file: FileId, before: &str, pos: usize, literal: &[Tok]) -> Option<Diagnostic> {
    let only_name = !literal.is_empty()
        && literal
            .iter()
            .all(|t| matches!(t, Tok::Range) || matches!(t, Tok::Lit(l) if l == "_"));
    if !(only_name && KEYWORDS.contains(&before)) {
        return None;
    }
    let span = Span {
        file,
        start: (pos - before.len()) as u32,
        end: pos as u32,
    };
    Some(
        Diagnostic::error(
            span,
            format!("syntax error: `{before}` is a keyword and cannot be used as a name"),
        )
        .with_help(format!("choose another name, e.g. `{before}_`")),
    )
}

/// The error for input nested deeper than pest's call limit, if that is
/// what stopped the parser.
fn nesting_limit(
    e: &pest::error::Error<Rule>,
    file: FileId,
    rule_pos: usize,
) -> Option<Diagnostic> {
    use pest::error::ErrorVariant;
    if let ErrorVariant::CustomError { message } = &e.variant {
        if message.contains("limit reached") {
            return Some(
                Diagnostic::error(
                    Span {
                        file,
                        start: rule_pos as u32,
                        end: rule_pos as u32 + 1,
                    },
                    "this is nested too deeply for the compiler",
                )
                .with_help("split the expression into several assignments"),
            );
        }
    }
    None
}

/// What the parser expected, in words: the literal tokens if any, else
/// the grammar rules.
fn expected_text(e: &pest::error::Error<Rule>, literal: &[Tok]) -> String {
    use pest::error::ErrorVariant;
    let expected = if literal.is_empty() {
        match &e.variant {
            ErrorVariant::ParsingError { positives, .. } => {
                let mut names: Vec<&str> = positives.iter().map(rule_name).collect();
                names.sort_unstable();
                names.dedup();
                names.into_iter().map(str::to_string).collect()
            }
            ErrorVariant::CustomError { message } => vec![message.clone()],
        }
    } else {
        describe_expected(literal.to_vec())
    };
    match expected.len() {
        0 => "something else".to_string(),
        1 => expected[0].clone(),
        _ => {
            let (last, rest) = expected
                .split_last()
                .map(|(l, r)| (l.clone(), r.join(", ")))
                .unwrap_or_default();
            format!("{rest} or {last}")
        }
    }
}

/// The help of a syntax error: a typo of an expected keyword, else the
/// form of the enclosing construct.
fn syntax_help(text: &str, pos: usize, found: &str, literal: &[Tok]) -> String {
    let keywords: Vec<&str> = literal
        .iter()
        .filter_map(|t| match t {
            Tok::Lit(l) if l.chars().all(|c| c.is_ascii_alphabetic()) => Some(l.as_str()),
            _ => None,
        })
        .collect();
    match crate::diag::did_you_mean(found, keywords.iter().copied()) {
        Some(k) if found.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && k != found => {
            format!("did you mean `{k}`?")
        }
        _ if pos >= text.len() && literal.contains(&Tok::Lit("*/".into())) => {
            "a `/*` comment is never closed with `*/`".to_string()
        }
        _ if pos >= text.len() && literal.contains(&Tok::Lit("}".into())) => {
            let open = unclosed::open_brace_line(text)
                .map(|l| format!(" (the `{{` on line {l} is never closed)"))
                .unwrap_or_default();
            format!("the file ends too early: is a closing `}}` missing?{open}")
        }
        _ if pos >= text.len() => "the file ends in the middle of an item".to_string(),
        _ => hints::construct_help(text, pos),
    }
}

/// An expected token at the error position.
#[derive(Clone, PartialEq)]
enum Tok {
    /// A literal string of the grammar.
    Lit(String),
    /// A character range (start of a name or number).
    Range,
}

const KEYWORDS: &[&str] = &[
    "protocol",
    "role",
    "const",
    "param",
    "requires",
    "input",
    "output",
    "at",
    "round",
    "chunked",
    "check",
    "else",
    "abort",
    "do",
    "with",
    "extends",
    "insert",
    "after",
    "before",
    "sample",
    "for",
    "in",
    "all",
    "true",
    "false",
    "intrinsic",
    "import",
    "functionality",
    "extern",
    "type",
];
const OPERATORS: &[&str] = &[
    "||", "&&", "==", "!=", "<=", ">=", "<", ">", "|", "^", "&", "+", "-", "*", "/", "%", "<<",
    ">>", "as",
];
const EXPR_START: &[&str] = &["!", "(", "-", "[", "_", "sample", "true", "false", "0x"];
const PROTO_ITEMS: &[&str] = &[
    "const", "param", "input", "output", "at", "round", "do", "insert", "omit",
];
const TOP_ITEMS: &[&str] = &["protocol", "intrinsic", "functionality", "extern", "import"];

/// Groups expected literal tokens into words: "an expression", "an operator", "`->`".
fn describe_expected(mut toks: Vec<Tok>) -> Vec<String> {
    let has = |toks: &[Tok], l: &str| toks.iter().any(|t| matches!(t, Tok::Lit(x) if x == l));
    let remove = |toks: &mut Vec<Tok>, set: &[&str]| {
        toks.retain(|t| !matches!(t, Tok::Lit(x) if set.contains(&x.as_str())))
    };
    let mut groups = vec![];
    if has(&toks, "sample") || has(&toks, "(") {
        groups.push("an expression".to_string());
        remove(&mut toks, EXPR_START);
        toks.retain(|t| *t != Tok::Range);
    } else if toks.contains(&Tok::Range) {
        groups.push(
            if has(&toks, "_") {
                "a name"
            } else {
                "a number"
            }
            .to_string(),
        );
        remove(&mut toks, &["_"]);
        toks.retain(|t| *t != Tok::Range);
    }
    if OPERATORS.iter().filter(|o| has(&toks, o)).count() >= 3 {
        groups.push("an operator".to_string());
        remove(&mut toks, OPERATORS);
        remove(&mut toks, &["[", "."]);
    }
    if PROTO_ITEMS.iter().all(|k| has(&toks, k)) {
        groups.push(
            "a protocol item (`const`, `param`, `input`, `output`, `at`, `round`, `do`, `insert`, `omit`)"
                .to_string(),
        );
        remove(&mut toks, PROTO_ITEMS);
        // `about` opens a body; it is not worth naming in every message.
        remove(&mut toks, &["about"]);
    }
    if TOP_ITEMS.iter().all(|k| has(&toks, k)) {
        groups.push(
            "`protocol`, `intrinsic`, `functionality`, `extern type` or `import`".to_string(),
        );
        remove(&mut toks, TOP_ITEMS);
    }
    // An optional `[index]` after a role is rarely what is missing.
    if toks
        .iter()
        .any(|t| !matches!(t, Tok::Lit(x) if x == "[" || x == "."))
    {
        remove(&mut toks, &["[", "."]);
    }
    let mut out: Vec<String> = toks
        .into_iter()
        .filter_map(|t| match t {
            Tok::Lit(l) => Some(format!("`{l}`")),
            Tok::Range => None,
        })
        .collect();
    out.sort();
    out.dedup();
    out.extend(groups);
    out
}

/// The token found at `pos`: a word, a known operator, or one character.
fn found_at(text: &str, pos: usize) -> String {
    let rest = &text[pos.min(text.len())..];
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if !word.is_empty() {
        return word;
    }
    for op in ["->", "=>", "..", "::", "||", "&&", "==", "!=", "<=", ">="] {
        if rest.starts_with(op) {
            return op.to_string();
        }
    }
    rest.chars().next().map(String::from).unwrap_or_default()
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
            .op(Op::infix(Rule::shl_op, Assoc::Left) | Op::infix(Rule::shr_op, Assoc::Left))
            .op(Op::infix(Rule::add_op, Assoc::Left) | Op::infix(Rule::sub_op, Assoc::Left))
            .op(Op::infix(Rule::mul_op, Assoc::Left)
                | Op::infix(Rule::div_op, Assoc::Left)
                | Op::infix(Rule::rem_op, Assoc::Left))
            .op(Op::postfix(Rule::cast))
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
        Span {
            file: self.file,
            start: s.start() as u32,
            end: s.end() as u32,
        }
    }

    fn ident(&self, p: Option<Pair<Rule>>) -> Ident {
        match p {
            Some(p) => Ident {
                name: p.as_str().to_string(),
                span: self.span(&p),
            },
            None => Ident {
                name: String::new(),
                span: Span {
                    file: self.file,
                    start: 0,
                    end: 0,
                },
            },
        }
    }

    fn intrinsic(&self, pair: Pair<Rule>) -> IntrinsicDecl {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let name = self.ident(it.next());
        let mut params = Vec::new();
        let mut ret = None;
        let mut path = String::new();
        let mut path_span = span;
        let mut chunk = None;
        let mut stale_chunk_path = None;
        let mut moves = Vec::new();
        let mut holding = None;
        for p in it {
            match p.as_rule() {
                Rule::sig_params => {
                    for sp in p.into_inner() {
                        let mut f = sp.into_inner().peekable();
                        let n = self.ident(f.next());
                        let moved = f
                            .peek()
                            .map(|x| x.as_rule() == Rule::move_mark)
                            .unwrap_or(false);
                        if moved {
                            f.next();
                        }
                        let t = self.ty(f.next());
                        params.push(Field { name: n, ty: t });
                        moves.push(moved);
                    }
                }
                Rule::ty => ret = Some(self.ty(Some(p))),
                Rule::rust_path => {
                    path = rust_path(p.as_str());
                    path_span = self.span(&p);
                }
                Rule::chunk_variant => {
                    chunk = Some(path.clone());
                    stale_chunk_path = p.into_inner().next().map(|c| self.span(&c));
                }
                Rule::holding => holding = p.into_inner().next().map(|e| self.expr(e)),
                _ => {}
            }
        }
        IntrinsicDecl {
            name,
            params,
            ret: ret.unwrap_or_else(|| self.ty(None)),
            path,
            path_span,
            chunk,
            stale_chunk_path,
            moves,
            holding,
            span,
        }
    }

    fn functionality(&self, pair: Pair<Rule>) -> Functionality {
        let mut it = pair.into_inner();
        let name = self.ident(it.next());
        let mut f = Functionality {
            name,
            roles: vec![],
            params: vec![],
            io: vec![],
            impls: vec![],
            error: None,
        };
        for p in it {
            match p.as_rule() {
                Rule::role_list => f.roles = self.roles(p),
                Rule::param_decl => f.params.push(self.param(p)),
                Rule::io_decl => f.io.push(self.io(p)),
                Rule::func_error => {
                    f.error = p.into_inner().next().map(|x| rust_path(x.as_str()));
                }
                Rule::func_impl => {
                    let span = self.span(&p);
                    let mut it = p.into_inner();
                    let role = self.ident(it.next());
                    let path = it.next().map(|x| rust_path(x.as_str())).unwrap_or_default();
                    let args = it.map(|a| self.ident(Some(a))).collect();
                    f.impls.push(FuncImpl {
                        role,
                        path,
                        args,
                        span,
                    });
                }
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
        let mut proto = Protocol {
            span: name.span.to(Span {
                end: name.span.end,
                ..whole
            }),
            name,
            roles: vec![],
            extends: None,
            realizes: None,
            items: vec![],
            about: None,
        };
        proto.span.start = whole.start;
        for p in it {
            match p.as_rule() {
                Rule::role_list => proto.roles = self.roles(p),
                Rule::extends => proto.extends = Some(self.ident(p.into_inner().next())),
                Rule::realizes => proto.realizes = Some(self.realizes(p)),
                Rule::about => {
                    // A second block adds its entries (a repeated key is the checker's error).
                    let about = self.about(p);
                    match &mut proto.about {
                        Some(first) => first.entries.extend(about.entries),
                        None => proto.about = Some(about),
                    }
                }
                _ => {
                    if let Some(item) = self.item(p) {
                        proto.items.push(item);
                    }
                }
            }
        }
        proto
    }

    /// `about { key = "text"; ... }`.
    fn about(&self, p: Pair<Rule>) -> About {
        let span = self.span(&p);
        let entries = p
            .into_inner()
            .map(|e| {
                let mut it = e.into_inner();
                let key = self.ident(it.next());
                let text = it.next();
                let at = text.as_ref().map_or(key.span, |t| self.span(t));
                let text = text.map_or("", |t| t.as_str());
                let text = text.strip_prefix('"').unwrap_or(text);
                let text = text.strip_suffix('"').unwrap_or(text);
                (key, text.to_string(), at)
            })
            .collect();
        About { entries, span }
    }

    fn item(&self, p: Pair<Rule>) -> Option<Item> {
        Some(match p.as_rule() {
            Rule::const_decl => {
                let mut it = p.into_inner();
                let name = self.ident(it.next());
                let ty = self.ty(it.next());
                let value = self.expr_opt(it.next());
                let requires = it.next().map(|r| self.expr_opt(r.into_inner().next()));
                Item::Const(ConstDecl {
                    name,
                    ty,
                    value,
                    requires,
                })
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
                Item::Insert(Insert {
                    after,
                    anchor,
                    items,
                    span: Span {
                        end: span.start + 6,
                        ..span
                    },
                })
            }
            Rule::omit => {
                let span = self.span(&p);
                let names = p
                    .into_inner()
                    .filter(|q| q.as_rule() == Rule::ident)
                    .map(|q| self.ident(Some(q)))
                    .collect();
                Item::Omit(Omit { names, span })
            }
            _ => return None,
        })
    }

    fn param(&self, p: Pair<Rule>) -> ParamDecl {
        let mut it = p.into_inner();
        let name = self.ident(it.next());
        let ty = self.ty(it.next());
        let mut rest = it.peekable();
        let tuning = rest.next_if(|r| r.as_rule() == Rule::tuning).is_some();
        let requires = rest.next().map(|r| self.expr_opt(r.into_inner().next()));
        ParamDecl {
            name,
            ty,
            requires,
            tuning,
        }
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
        IoDecl {
            kind,
            role,
            fields,
            span,
        }
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
            None => RoleRef {
                name: self.ident(None),
                index: None,
            },
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
                        Stmt::Check {
                            cond,
                            abort,
                            span: sspan,
                        }
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
        let mut unchecked = None;
        let to = match it.next() {
            Some(t) => {
                let mut parts = t.into_inner();
                match parts.next() {
                    Some(inner) if inner.as_rule() == Rule::all_roles => {
                        unchecked = parts.next().map(|u| self.span(&u));
                        Target::All(self.span(&inner))
                    }
                    inner => Target::Role(self.role_ref(inner)),
                }
            }
            None => Target::All(whole),
        };
        let msg = self.ident(it.next());
        let mut r = Round {
            name,
            from,
            to,
            msg,
            fields: vec![],
            chunk_by: None,
            chunked: None,
            unchecked,
            body: vec![],
            span: whole,
        };
        for q in it {
            match q.as_rule() {
                Rule::field_list => {
                    r.fields = self.fields(q.clone());
                    r.span.end = self.span(&q).end + 1;
                }
                Rule::transport => {
                    r.chunked = Some(self.span(&q));
                    r.chunk_by = Some(self.expr_opt(q.into_inner().next()));
                }
                Rule::round_body => r.body = q.into_inner().map(|a| self.at_block(a)).collect(),
                _ => {}
            }
        }
        // The header ends with the message's closing brace; keep diagnostics on one line.
        r.span.end = r.span.end.min(r.msg.span.end);
        r
    }

    fn do_stmt(&self, p: Pair<Rule>) -> DoStmt {
        self.call_like(p, true)
    }

    /// `realizes F[...](...) with { ... }`, as a `do` call named after `F`.
    fn realizes(&self, p: Pair<Rule>) -> DoStmt {
        self.call_like(p, false)
    }

    /// A `do` call (`named`: its call name comes first) or a `realizes`.
    fn call_like(&self, p: Pair<Rule>, named: bool) -> DoStmt {
        let span = self.span(&p);
        let mut it = p.into_inner();
        let first = self.ident(it.next());
        let (name, func) = if named {
            (first, self.ident(it.next()))
        } else {
            (first.clone(), first)
        };
        let mut d = DoStmt {
            name,
            func,
            params: vec![],
            roles: vec![],
            inputs: vec![],
            span,
        };
        self.binds(&mut d, it);
        d
    }

    /// The parameter, role and input bindings of a `do` call or `realizes`.
    fn binds(&self, d: &mut DoStmt, it: pest::iterators::Pairs<Rule>) {
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
    }

    fn ty(&self, p: Option<Pair<Rule>>) -> Type {
        let Some(p) = p else {
            return Type {
                kind: TypeKind::Named(self.ident(None), vec![]),
                span: Span {
                    file: self.file,
                    start: 0,
                    end: 0,
                },
            };
        };
        let span = self.span(&p);
        let inner = if p.as_rule() == Rule::ty { first(p) } else { p };
        match inner.as_rule() {
            Rule::array_ty => {
                let mut it = inner.into_inner();
                let elem = self.ty(it.next());
                let len = self.expr_opt(it.next());
                Type {
                    kind: TypeKind::Array(Box::new(elem), Box::new(len)),
                    span,
                }
            }
            _ => {
                let mut it = inner.into_inner();
                let name = self.ident(it.next());
                let args = it.map(|e| self.expr(e)).collect();
                Type {
                    kind: TypeKind::Named(name, args),
                    span,
                }
            }
        }
    }

    fn expr_opt(&self, p: Option<Pair<Rule>>) -> Expr {
        match p {
            Some(p) => self.expr(p),
            None => Expr {
                kind: ExprKind::Int(0),
                span: Span {
                    file: self.file,
                    start: 0,
                    end: 0,
                },
            },
        }
    }

    fn expr(&self, p: Pair<Rule>) -> Expr {
        let file = self.file;
        pratt()
            .map_primary(|prim| self.primary(prim))
            .map_prefix(|op, rhs| {
                let span = self.span(&op).to(rhs.span);
                let u = if op.as_rule() == Rule::not_op {
                    UnOp::Not
                } else {
                    UnOp::Neg
                };
                Expr {
                    kind: ExprKind::Unary(u, Box::new(rhs)),
                    span,
                }
            })
            .map_postfix(|lhs, op| {
                let span = lhs.span.to(self.span(&op));
                match op.as_rule() {
                    Rule::index => {
                        let idx = self.expr_opt(op.into_inner().next());
                        Expr {
                            kind: ExprKind::Index(Box::new(lhs), Box::new(idx)),
                            span,
                        }
                    }
                    Rule::cast => {
                        let ty = self.ty(op.into_inner().find(|p| p.as_rule() == Rule::ty));
                        Expr {
                            kind: ExprKind::Cast(Box::new(lhs), ty),
                            span,
                        }
                    }
                    _ => {
                        let name = self.ident(op.into_inner().next());
                        Expr {
                            kind: ExprKind::Member(Box::new(lhs), name),
                            span,
                        }
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
                    Rule::shl_op => BinOp::Shl,
                    Rule::shr_op => BinOp::Shr,
                    _ => BinOp::Rem,
                };
                let _ = file;
                Expr {
                    kind: ExprKind::Binary(b, Box::new(lhs), Box::new(rhs)),
                    span,
                }
            })
            .parse(p.into_inner())
    }

    fn primary(&self, p: Pair<Rule>) -> Expr {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::int_lit => return int_literal(p.as_str(), span),
            Rule::bool_lit => ExprKind::Bool(p.as_str() == "true"),
            Rule::ident => ExprKind::Var(p.as_str().to_string()),
            Rule::paren => return self.expr_opt(p.into_inner().next()),
            Rule::sample => ExprKind::Sample(self.ty(p.into_inner().next())),
            Rule::array_lit => {
                let mut it = p.into_inner();
                match (it.next(), it.next()) {
                    (Some(first), Some(tail)) if tail.as_rule() == Rule::comprehension => {
                        let body = self.expr(first);
                        let mut t = tail.into_inner();
                        let var = self.ident(t.next());
                        let lo = self.expr_opt(t.next());
                        let hi = self.expr_opt(t.next());
                        ExprKind::Comprehension {
                            body: Box::new(body),
                            var,
                            lo: Box::new(lo),
                            hi: Box::new(hi),
                        }
                    }
                    (Some(first), tail) => {
                        let mut items = vec![self.expr(first)];
                        items.extend(
                            tail.into_iter()
                                .flat_map(|t| t.into_inner())
                                .map(|e| self.expr(e)),
                        );
                        ExprKind::Array(items)
                    }
                    (None, _) => ExprKind::Array(vec![]),
                }
            }
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

/// An integer literal: decimal or `0x` hexadecimal, `_` separators, and an
/// optional type suffix, which becomes a cast of the unsuffixed literal
/// (`5u64` is `5 as u64`; the checker rejects a literal that does not fit
/// the type it is cast to). A literal beyond `u128` is kept as `u128::MAX`,
/// which no integer type holds, so it is reported as out of range.
fn int_literal(text: &str, span: Span) -> Expr {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    let (digits, suffix) = match digits.find('u') {
        Some(k) => (&digits[..k], Some(&digits[k..])),
        None => (digits.as_str(), None),
    };
    let value = match digits.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16),
        None => digits.parse(),
    }
    .unwrap_or(u128::MAX);
    let lit = Expr {
        kind: ExprKind::Int(value),
        span,
    };
    match suffix {
        None => lit,
        Some(sfx) => Expr {
            kind: ExprKind::Cast(
                Box::new(lit),
                Type {
                    kind: TypeKind::Named(
                        Ident {
                            name: sfx.to_string(),
                            span,
                        },
                        vec![],
                    ),
                    span,
                },
            ),
            span,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves_of(src: &str) -> Vec<(String, bool)> {
        let f = parse_file(src, 0).unwrap_or_else(|d| panic!("{}", d.message));
        let i = &f.intrinsics[0];
        i.params
            .iter()
            .zip(&i.moves)
            .map(|(p, m)| (p.name.name.clone(), *m))
            .collect()
    }

    #[test]
    fn move_before_a_named_type() {
        let got = moves_of(
            "intrinsic f(st: move MiniMacAes, b: move Block, v: move [Block; 4], k: Block, \
             moved: movement) -> Block = a::f;",
        );
        let want = [
            ("st", true),
            ("b", true),
            ("v", true),
            ("k", false),
            ("moved", false),
        ];
        assert_eq!(
            got,
            want.map(|(n, m)| (n.to_string(), m)).to_vec(),
            "`move` marks exactly the parameters written with it"
        );
        // A type whose name starts with `move` is a type, not the mark.
        let f = parse_file("intrinsic f(x: movement) -> Block = a::f;", 0)
            .unwrap_or_else(|d| panic!("{}", d.message));
        assert!(
            matches!(&f.intrinsics[0].params[0].ty.kind, TypeKind::Named(n, _) if n.name == "movement")
        );
    }
}
