//! The chart as plain text: one column per lifeline, arrows drawn with
//! `-` and `>`, notes and sub-protocol boxes in brackets.

use super::{Chart, Step};

/// Columns between two lifelines.
const GAP: usize = 56;

/// Renders the chart.
pub fn render(c: &Chart) -> String {
    let n = c.roles.len();
    let width = GAP * n.saturating_sub(1) + 1;
    let x = |i: usize| i * GAP;
    let mut out = format!("{}\n\n", c.title);
    let mut head = String::new();
    for (i, r) in c.roles.iter().enumerate() {
        let pad = x(i).saturating_sub(head.chars().count());
        head.push_str(&" ".repeat(pad));
        head.push_str(r);
        head.push(' ');
    }
    out.push_str(head.trim_end());
    out.push('\n');
    let lifelines = || {
        let mut l = vec![' '; width];
        for i in 0..n {
            l[x(i)] = '|';
        }
        l
    };
    let line = |l: Vec<char>| l.into_iter().collect::<String>().trim_end().to_string() + "\n";
    let put = |l: &mut Vec<char>, at: usize, s: &str| {
        for (k, ch) in s.chars().enumerate() {
            if at + k < l.len() {
                l[at + k] = ch;
            } else {
                l.push(ch);
            }
        }
    };
    out.push_str(&line(lifelines()));
    for s in &c.steps {
        match s {
            Step::Note { role, lines } => {
                for t in lines {
                    let mut l = lifelines();
                    let t = format!("[{t}]");
                    // Notes of the last lifeline go to its left.
                    let at = if *role + 1 == n && n > 1 {
                        x(*role).saturating_sub(t.chars().count() + 1)
                    } else {
                        x(*role) + 2
                    };
                    put(&mut l, at, &t);
                    out.push_str(&line(l));
                }
            }
            Step::Arrow(arrow) => {
                let (a, b) = (x(arrow.from.min(arrow.to)), x(arrow.from.max(arrow.to)));
                let mut l = lifelines();
                put(&mut l, a + 2, &arrow.label);
                out.push_str(&line(l));
                let mut l = lifelines();
                put(&mut l, a + 2, &format!("({})", arrow.detail));
                out.push_str(&line(l));
                let mut l = lifelines();
                let dash = if arrow.chunked { '=' } else { '-' };
                for ch in l.iter_mut().take(b).skip(a + 1) {
                    *ch = dash;
                }
                if arrow.from < arrow.to {
                    l[b - 1] = '>';
                } else {
                    l[a + 1] = '<';
                }
                out.push_str(&line(l));
            }
            Step::Sub { label } => {
                let bar = format!("+{}+", "-".repeat(width.saturating_sub(2)));
                out.push_str(&bar);
                out.push('\n');
                let mut l = lifelines();
                put(&mut l, 2, label);
                out.push_str(&line(l));
                out.push_str(&bar);
                out.push('\n');
            }
        }
    }
    out.push_str(&line(lifelines()));
    out
}
