//! Generated large specifications, for the scale benchmark
//! (`examples/check_scale.rs`) and the regression test that the front end
//! stays close to linear in the file size.

use std::fmt::Write;

/// A two-party protocol of `n` rounds: a `Block` travels back and forth,
/// each role inverting it before sending it on.
pub fn many_rounds(n: usize) -> String {
    let mut s = String::from("protocol Scale(role A, role B) {\n    input A { x0: Block }\n");
    for i in 0..n {
        let (from, to) = if i.is_multiple_of(2) {
            ("A", "B")
        } else {
            ("B", "A")
        };
        let _ = writeln!(
            s,
            "    round r{i}: {from} -> {to} : M{i} {{ x{i}: Block }}\n    at {to} {{ x{} = !x{i}; }}",
            i + 1
        );
    }
    let last = if n.is_multiple_of(2) { "A" } else { "B" };
    let _ = writeln!(s, "    output {last} {{ x{n}: Block }}\n}}");
    s
}

/// A two-party protocol whose receiver runs one block of `n` statements,
/// each combining the two previous values.
pub fn long_block(n: usize) -> String {
    let mut s = String::from(
        "protocol Scale(role A, role B) {\n    input A { x: Block }\n    round go: A -> B : Go { x: Block }\n    at B {\n        y0 = !x;\n        y1 = y0 ^ x;\n",
    );
    for i in 2..n.max(2) {
        let _ = writeln!(s, "        y{i} = y{} ^ y{};", i - 1, i - 2);
    }
    let _ = writeln!(s, "    }}\n    output B {{ y{}: Block }}\n}}", n.max(2) - 1);
    s
}

/// A two-party protocol whose sender computes one flat operator chain of
/// `n` terms of each kind (`x ^ x ^ ...` on blocks, `k + k + ...` on
/// `u64`) and sends both results.
pub fn long_chain(n: usize) -> String {
    let n = n.max(1);
    let xor = vec!["x"; n].join(" ^ ");
    let sum = vec!["k"; n].join(" + ");
    format!(
        "protocol Scale(role A, role B) {{\n    input A {{ x: Block, k: u64 }}\n    at A {{\n        y = {xor};\n        s = {sum};\n    }}\n    round go: A -> B : Go {{ y: Block, s: u64 }}\n    output B {{ y: Block, s: u64 }}\n}}\n"
    )
}

/// Like [`long_chain`] with one expression nested `depth` parentheses
/// deep: `x ^ (x ^ (x ^ ... (x) ...))`.
pub fn deep_parens(depth: usize) -> String {
    let mut e = String::from("x");
    for _ in 0..depth {
        e = format!("x ^ ({e})");
    }
    format!(
        "protocol Scale(role A, role B) {{\n    input A {{ x: Block }}\n    at A {{\n        y = {e};\n    }}\n    round go: A -> B : Go {{ y: Block }}\n    output B {{ y: Block }}\n}}\n"
    )
}
