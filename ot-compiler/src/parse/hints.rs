//! Syntax mistakes a newcomer often makes (a Rust `let`, `=` for `==`,
//! `[Block, n]`, `Bits(n)`, an `about` entry written `key: "text"`, ...),
//! recognised from the text around the place where the grammar stopped,
//! each with the fix as its help line; and the written form of the
//! enclosing construct for the others.

/// Where the parser stopped and what it expected there.
pub(super) struct Stop<'a> {
    /// The whole text parsed.
    pub text: &'a str,
    /// Byte offset where the grammar stopped.
    pub pos: usize,
    /// The token found there (empty at the end of the text).
    pub found: &'a str,
    /// The literal tokens the grammar expected there.
    pub expected: &'a [&'a str],
}

/// A recognised mistake: the bytes to mark, the message (if it says more
/// than "expected ..., found ...") and the help line.
pub(super) struct Hint {
    /// First byte marked.
    pub start: usize,
    /// End of the marked bytes.
    pub end: usize,
    /// The message replacing the plain "expected ..., found ...".
    pub message: Option<String>,
    /// How to fix it.
    pub help: String,
}

type Check = fn(&Stop) -> Option<Hint>;

/// The first mistake of the list that matches where the parser stopped.
pub(super) fn hint(s: &Stop) -> Option<Hint> {
    const CHECKS: &[Check] = &[
        rust_let,
        if_statement,
        inclusive_range,
        assign_for_compare,
        sample_without_type,
        double_comma,
        array_type_comma,
        comma_ends_statement,
        semicolon_in_call,
        repeat_array,
        reversed_arrow,
        type_in_parens,
        generic_type,
        message_name,
        about_colon,
        unquoted_text,
        dotted_path,
        untyped_name,
    ];
    CHECKS.iter().find_map(|check| check(s))
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The word ending right before `pos` (spaces skipped): its start and text.
fn word_before(text: &str, pos: usize) -> Option<(usize, &str)> {
    let end = text[..pos].trim_end().len();
    let start = text[..end]
        .char_indices()
        .rev()
        .find(|(_, c)| !is_word(*c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    (start < end).then(|| (start, &text[start..end]))
}

/// Whether a statement may start at `at`: after `{`, `;` or at the start.
fn starts_statement(text: &str, at: usize) -> bool {
    matches!(text[..at].trim_end().chars().last(), None | Some('{' | ';'))
}

/// A hint marking `start..end` with a message and help.
fn mark(start: usize, end: usize, message: String, help: String) -> Option<Hint> {
    Some(Hint {
        start,
        end,
        message: Some(message),
        help,
    })
}

/// A hint at the parser's position with only a help line.
fn help_here(s: &Stop, help: String) -> Option<Hint> {
    Some(Hint {
        start: s.pos,
        end: s.pos + s.found.len().max(1),
        message: None,
        help,
    })
}

/// `let x = ...;`: Rust's `let` before an assignment.
fn rust_let(s: &Stop) -> Option<Hint> {
    let (start, word) = word_before(s.text, s.pos)?;
    let statement = s.expected.contains(&"=") && starts_statement(s.text, start);
    if !matches!(word, "let" | "var") || !statement {
        return None;
    }
    mark(
        start,
        start + word.len(),
        format!("syntax error: `{word}` is not part of the language"),
        format!("remove `{word}`: a value is assigned once, as `name = expression;`"),
    )
}

/// `if c { ... } else { ... }`: there are no statements that branch.
fn if_statement(s: &Stop) -> Option<Hint> {
    let (start, word) = word_before(s.text, s.pos)?;
    if word != "if" || !s.expected.contains(&"=") || !starts_statement(s.text, start) {
        return None;
    }
    mark(
        start,
        start + 2,
        "syntax error: there is no `if` statement: every statement runs".into(),
        format!(
            "choose between two values with `select`: `name = select({}, if_true, if_false);`",
            s.found
        ),
    )
}

/// `0..=n`: Rust's inclusive range.
fn inclusive_range(s: &Stop) -> Option<Hint> {
    if s.found != "=" || !s.text[..s.pos].ends_with("..") {
        return None;
    }
    mark(
        s.pos - 2,
        s.pos + 1,
        "syntax error: `..=` is not a range of the language".into(),
        "ranges exclude their end: write `lo..hi` with `..` (`0..n` is 0 to n - 1)".into(),
    )
}

/// `check a = b` or `requires n = 3`: `=` where a comparison belongs.
fn assign_for_compare(s: &Stop) -> Option<Hint> {
    if s.found != "=" || !s.expected.contains(&"==") {
        return None;
    }
    help_here(
        s,
        "to compare, write `==`: `=` only assigns, in `name = expression;`".into(),
    )
}

/// `x = sample;`: `sample` without the type to sample.
fn sample_without_type(s: &Stop) -> Option<Hint> {
    let (_, word) = word_before(s.text, s.pos)?;
    if word != "sample" {
        return None;
    }
    help_here(
        s,
        "`sample` takes the type to sample: `sample Block`, `sample [Block; n]`".into(),
    )
}

/// `{ a: Block,, b: Block }`: a comma too many.
fn double_comma(s: &Stop) -> Option<Hint> {
    if s.found != "," || !s.text[..s.pos].trim_end().ends_with(',') {
        return None;
    }
    help_here(s, "remove the extra `,`".into())
}

/// The innermost `open` bracket (`[` or `(`) still open at `pos`.
fn open_bracket(text: &str, pos: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in text.as_bytes()[..pos].iter().enumerate().rev() {
        if b == close {
            depth += 1;
        } else if b == open {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// The offset of the `close` bracket closing the one open before `from`
/// (on the same line and statement).
fn close_of(text: &str, from: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[from..].char_indices() {
        match c {
            c if c == open => depth += 1,
            c if c == close && depth == 0 => return Some(from + i),
            c if c == close => depth -= 1,
            '\n' | ';' | '{' | '}' => return None,
            _ => {}
        }
    }
    None
}

/// The text from `from` up to the bracket closing the one open there.
fn until_close(text: &str, from: usize, open: char, close: char) -> Option<&str> {
    close_of(text, from, open, close).map(|end| text[from..end].trim())
}

/// `[Block, n]`: an array type with `,` for `;`.
fn array_type_comma(s: &Stop) -> Option<Hint> {
    if s.found != "," || !s.expected.contains(&";") {
        return None;
    }
    let open = open_bracket(s.text, s.pos, b'[', b']')?;
    let elem = s.text[open + 1..s.pos].trim();
    let len = until_close(s.text, s.pos + 1, '[', ']')?;
    if elem.is_empty() || len.is_empty() {
        return None;
    }
    help_here(
        s,
        format!("an array type is written with `;`: `[{elem}; {len}]`"),
    )
}

/// `x = e,` at the end of a statement.
fn comma_ends_statement(s: &Stop) -> Option<Hint> {
    if s.found != "," || !s.expected.contains(&";") {
        return None;
    }
    match enclosing(s.text, s.pos)? {
        "at" | "check" | "const" | "param" | "do" | "import" | "omit" => {
            help_here(s, "end the statement with `;`, not `,`".into())
        }
        _ => None,
    }
}

/// `f(a; b)`: arguments separated by `;`.
fn semicolon_in_call(s: &Stop) -> Option<Hint> {
    if s.found != ";" || !s.expected.contains(&",") || !s.expected.contains(&")") {
        return None;
    }
    help_here(s, "the arguments of a call are separated by `,`".into())
}

/// `[0u64; n]`: Rust's array repetition in an expression.
fn repeat_array(s: &Stop) -> Option<Hint> {
    if s.found != ";" || !s.expected.contains(&"]") || !s.expected.contains(&"for") {
        return None;
    }
    let open = open_bracket(s.text, s.pos, b'[', b']')?;
    let elem = s.text[open + 1..s.pos].trim();
    let len = until_close(s.text, s.pos + 1, '[', ']')?;
    help_here(
        s,
        format!("an array of `{len}` copies is written `[{elem} for i in 0..{len}]`"),
    )
}

/// `round r: B <- A`: the arrow written from the receiver.
fn reversed_arrow(s: &Stop) -> Option<Hint> {
    if !s.text[s.pos..].starts_with("<-") || !s.expected.contains(&"->") {
        return None;
    }
    let (_, to) = word_before(s.text, s.pos)?;
    let rest = s.text[s.pos + 2..].trim_start();
    let from: String = rest.chars().take_while(|c| is_word(*c)).collect();
    Some(Hint {
        start: s.pos,
        end: s.pos + 2,
        message: None,
        help: format!("a round goes from its sender to its receiver: `{from} -> {to}`"),
    })
}

/// Whether a type is written at `at`: after `:` (a field, parameter or
/// declaration), `->`, `sample` or `as`.
fn type_position(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    before.ends_with(':') && !before.ends_with("::")
        || before.ends_with("->")
        || matches!(word_before(text, at), Some((_, "sample" | "as")))
}

/// `Bits(n)`: a type's size in parentheses.
fn type_in_parens(s: &Stop) -> Option<Hint> {
    if s.found != "(" {
        return None;
    }
    let (start, name) = word_before(s.text, s.pos)?;
    if !type_position(s.text, start) || start + name.len() != s.pos {
        return None;
    }
    let inner = until_close(s.text, s.pos + 1, '(', ')')?;
    help_here(
        s,
        format!("the size of a type is written in brackets: `{name}[{inner}]`"),
    )
}

/// `Vec<Block>`: a Rust generic type.
fn generic_type(s: &Stop) -> Option<Hint> {
    if s.found != "<" {
        return None;
    }
    let (start, name) = word_before(s.text, s.pos)?;
    if !type_position(s.text, start) {
        return None;
    }
    let close = close_of(s.text, s.pos + 1, '<', '>')?;
    let (inner, end) = (s.text[s.pos + 1..close].trim(), close + 1);
    let help = match name {
        "Vec" | "VecDeque" | "Box" => {
            format!("an array of `n` values is written `[{inner}; n]`, its length a constant or parameter")
        }
        _ => "the types are `Bit`, `Block`, `Seed`, `Point`, `Scalar`, `usize`, `u64`, `u32`, `u8`, `Bits[n]`, `BitMatrix[r, c]`, arrays `[T; n]` and declared `extern type`s".into(),
    };
    mark(
        start,
        end,
        format!("syntax error: `{name}<{inner}>` is not a type of the language"),
        help,
    )
}

/// `round give: A -> B { ... }`: the message's name is missing.
fn message_name(s: &Stop) -> Option<Hint> {
    let (at, kw) = enclosing_at(s.text, s.pos)?;
    if s.found != "{" || !s.expected.contains(&":") || kw != "round" {
        return None;
    }
    let header = s.text[at + kw.len()..s.pos].trim();
    let name = header.split(':').next()?.trim();
    let msg = crate::case::camel(name);
    help_here(
        s,
        format!("add the name of the round's message: `round {header} : {msg} {{ ... }}`"),
    )
}

/// The key of the `about` entry being written at `pos`, if inside one.
fn about_key<'a>(s: &Stop<'a>) -> Option<&'a str> {
    if enclosing(s.text, s.pos)? != "about" {
        return None;
    }
    let line = s.text[..s.pos].rsplit('\n').next()?;
    let key = line.trim().trim_end_matches([':', '=']).trim();
    (!key.is_empty() && key.chars().all(is_word)).then_some(key)
}

/// `family: "text";` in an `about` block.
fn about_colon(s: &Stop) -> Option<Hint> {
    if s.found != ":" {
        return None;
    }
    let key = about_key(s)?;
    help_here(
        s,
        format!("an `about` entry is written `key = \"text\";`: `{key} = \"...\";`"),
    )
}

/// A text written without quotes: an `about` value or an `import` path.
fn unquoted_text(s: &Stop) -> Option<Hint> {
    if s.expected != ["\""] || s.found.is_empty() {
        return None;
    }
    let rest = &s.text[s.pos..];
    let value = rest[..rest.find([';', '\n']).unwrap_or(rest.len())].trim();
    let help = match enclosing(s.text, s.pos)? {
        "import" => format!("write the path in double quotes: `import \"{value}\";`"),
        "about" => format!(
            "write the text in double quotes: `{} = \"{value}\";`",
            about_key(s)?
        ),
        _ => return None,
    };
    help_here(s, help)
}

/// `ot.runtime.Table` or `ot:runtime` where a Rust path belongs.
fn dotted_path(s: &Stop) -> Option<Hint> {
    if !matches!(s.found, "." | ":") || !s.expected.contains(&"::") {
        return None;
    }
    let start = s.text[..s.pos]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map(|(i, c)| i + c.len_utf8())?;
    let rest = &s.text[start..];
    let path = rest[..rest.find([';', '\n', ' ']).unwrap_or(rest.len())].trim();
    let fixed = path
        .replace("::", "\u{0}")
        .replace([':', '.'], "::")
        .replace('\u{0}', "::");
    help_here(
        s,
        format!("the parts of a Rust path are separated by `::`: `{fixed}`"),
    )
}

/// `a, b: Block` or `const K = 1`: a name declared without its type.
fn untyped_name(s: &Stop) -> Option<Hint> {
    if s.expected != [":"] {
        return None;
    }
    let (_, name) = word_before(s.text, s.pos)?;
    let ty = match enclosing(s.text, s.pos)? {
        "const" | "param" => "usize",
        "intrinsic" | "input" | "output" => "Type",
        _ => return None,
    };
    if s.found
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
    {
        // The type is there: only the `:` is missing.
        return help_here(s, format!("write `{name}: {}`", s.found));
    }
    help_here(s, format!("give `{name}` its type: `{name}: {ty}`"))
}

/// The keywords that open a construct, with the written form of each.
const FORMS: &[(&str, &str)] = &[
    ("round", "a round is written `round name: From -> To : Message { field: Type, ... }`, optionally followed by `chunked(by = n)` and `{ at Role { ... } }`"),
    ("do", "a sub-protocol call is written `do name: Functionality[param = value](FuncRole = Role, ...) with { FuncRole.input = value };`"),
    ("check", "a check is written `check <condition> else abort ErrorName;`"),
    ("at", "local computation is written `at Role { name = expression; check <condition> else abort Name; }`"),
    ("const", "a constant is written `const NAME: usize = value requires <condition>;`"),
    ("param", "a parameter is written `param name: usize requires <condition>;`"),
    ("input", "inputs are written `input Role { name: Type, ... }`"),
    ("output", "outputs are written `output Role { name: Type, ... }`"),
    ("insert", "an insertion is written `insert after round_name { items }`"),
    ("about", "an `about` entry is written `key = \"text\";` (keys `family`, `security`, `summary`, `proof`)"),
    ("intrinsic", "an intrinsic is written `intrinsic name(arg: Type, ...) -> Type = ::rust::path;`"),
    ("extern", "an extern type is written `extern type Name = ::rust::path::Type;`"),
    ("functionality", "a functionality is written `functionality Name(role A, role B) { param ...; input ...; output ... }`"),
    ("protocol", "a protocol is written `protocol Name(role A, role B) { items }` or `protocol Name extends Base { items }`"),
    ("import", "an import is written `import \"file.otp\";`"),
];

/// The keyword of the construct enclosing `pos`: the nearest one before it.
fn enclosing(text: &str, pos: usize) -> Option<&'static str> {
    enclosing_at(text, pos).map(|(_, kw)| kw)
}

/// [`enclosing`], with the keyword's offset.
fn enclosing_at(text: &str, pos: usize) -> Option<(usize, &'static str)> {
    let before = &text[..pos.min(text.len())];
    let mut best: Option<(usize, &'static str)> = None;
    for (kw, _) in FORMS {
        let mut search = before;
        while let Some(i) = search.rfind(kw) {
            let ok_left = i == 0 || !search[..i].ends_with(is_word);
            let ok_right = !search[i + kw.len()..].starts_with(is_word);
            if ok_left && ok_right {
                if best.is_none_or(|(b, _)| i > b) {
                    best = Some((i, kw));
                }
                break;
            }
            search = &search[..i];
        }
    }
    best
}

/// The written form of the construct that encloses `pos`, found from the
/// nearest keyword that starts one.
pub(super) fn construct_help(text: &str, pos: usize) -> String {
    let form = enclosing(text, pos).and_then(|kw| FORMS.iter().find(|(k, _)| *k == kw));
    match form {
        Some((_, form)) => form.to_string(),
        None => "see the grammar summary in the book, book/chapters/02-otp-language.md".to_string(),
    }
}
