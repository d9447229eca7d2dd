//! The chart as SVG: role boxes on top, dashed lifelines, arrows with the
//! round label above and size below (chunked rounds drawn with a double
//! dash), notes as yellow boxes beside their lifeline, sub-protocols as grey
//! boxes across all lifelines. Monospace text, so widths follow from
//! character counts.

use super::{Chart, Step};
use std::fmt::Write;

/// Width of one monospace character at the font size used.
const CHAR_W: f64 = 7.3;
/// Height of one text line.
const LINE_H: f64 = 16.0;

/// Escapes text for XML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn text_w(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

/// Renders the chart.
pub fn render(c: &Chart) -> String {
    let n = c.roles.len().max(1);
    let widest_arrow = c
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Arrow(a) => Some(text_w(&a.label).max(text_w(&a.detail))),
            _ => None,
        })
        .fold(0.0, f64::max);
    let widest_note = c
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Note { lines, .. } => lines.iter().map(|l| text_w(l)).reduce(f64::max),
            _ => None,
        })
        .fold(0.0, f64::max);
    let gap = (widest_arrow + 60.0)
        .max(2.0 * widest_note + 80.0)
        .max(320.0);
    let widest_role = c.roles.iter().map(|r| text_w(r)).fold(0.0, f64::max);
    let margin = (widest_role / 2.0 + 40.0).max(100.0);
    let x = |i: usize| margin + i as f64 * gap;
    let width = x(n - 1) + margin;
    let mut body = String::new();
    let mut y = 70.0;
    for s in &c.steps {
        match s {
            Step::Note { role, lines } => {
                let w = lines.iter().map(|l| text_w(l)).fold(0.0, f64::max) + 16.0;
                let h = lines.len() as f64 * LINE_H + 10.0;
                let left = if *role + 1 == n && n > 1 {
                    x(*role) - 10.0 - w
                } else {
                    x(*role) + 10.0
                };
                let _ = writeln!(
                    body,
                    r##"<rect class="note" x="{left:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="#fff8c4" stroke="#b8a000"/>"##
                );
                for (k, l) in lines.iter().enumerate() {
                    let _ = writeln!(
                        body,
                        r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                        left + 8.0,
                        y + 18.0 + k as f64 * LINE_H,
                        esc(l)
                    );
                }
                y += h + 12.0;
            }
            Step::Arrow(a) => {
                let (x1, x2) = (x(a.from), x(a.to));
                let mid = (x1 + x2) / 2.0;
                let _ = writeln!(
                    body,
                    r#"<text class="round" x="{mid:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"#,
                    y + 14.0,
                    esc(&a.label)
                );
                let dash = if a.chunked {
                    r#" stroke-dasharray="10 3""#
                } else {
                    ""
                };
                let ly = y + 24.0;
                let end = if x2 > x1 { x2 - 2.0 } else { x2 + 2.0 };
                let _ = writeln!(
                    body,
                    r##"<line class="message" x1="{x1:.1}" y1="{ly:.1}" x2="{end:.1}" y2="{ly:.1}" stroke="#1a4d8f" stroke-width="{}"{dash} marker-end="url(#head)"/>"##,
                    if a.chunked { 3 } else { 2 }
                );
                let _ = writeln!(
                    body,
                    r##"<text class="size" x="{mid:.1}" y="{:.1}" text-anchor="middle" fill="#444">{}</text>"##,
                    ly + 16.0,
                    esc(&a.detail)
                );
                y += 56.0;
            }
            Step::Sub { label } => {
                let w = width - 40.0;
                let _ = writeln!(
                    body,
                    r##"<rect class="sub" x="20" y="{y:.1}" width="{w:.1}" height="30" fill="#e6e6e6" fill-opacity="0.9" stroke="#555"/>"##
                );
                let _ = writeln!(
                    body,
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                    width / 2.0,
                    y + 20.0,
                    esc(label)
                );
                y += 42.0;
            }
        }
    }
    let height = y + 30.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="monospace" font-size="12">"#
    );
    let _ = writeln!(out, "<title>{}</title>", esc(&c.title));
    out.push_str(
        r##"<defs><marker id="head" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="8" refX="9" refY="4" orient="auto"><path d="M0,0 L10,4 L0,8 z" fill="#1a4d8f"/></marker></defs>
<rect width="100%" height="100%" fill="white"/>
"##,
    );
    for (i, r) in c.roles.iter().enumerate() {
        let w = text_w(r) + 20.0;
        let _ = writeln!(
            out,
            r##"<line class="lifeline" x1="{0:.1}" y1="50" x2="{0:.1}" y2="{1:.1}" stroke="#888" stroke-dasharray="4 4"/>"##,
            x(i),
            height - 10.0
        );
        let _ = writeln!(
            out,
            r##"<rect class="role" x="{:.1}" y="16" width="{w:.1}" height="30" fill="#dbe8f7" stroke="#1a4d8f"/>"##,
            x(i) - w / 2.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="36" text-anchor="middle" font-weight="bold">{}</text>"#,
            x(i),
            esc(r)
        );
    }
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}
