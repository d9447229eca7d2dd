//! `--param NAME=VALUE` arguments: parsed (`2^20`, `1<<20`, `3*2^10`,
//! `1_000`, `true`/`false`) and matched against the protocol's `param`s.

use crate::Fail;
use ot_compiler::ir::Ir;
use std::collections::BTreeMap;

/// Parameter values by name.
pub type Env = BTreeMap<String, u128>;

/// Parses every `NAME=VALUE` and checks each name is a parameter of `ir`.
pub fn parse_all(args: &[String], ir: &Ir) -> Result<Env, Fail> {
    let mut env = Env::new();
    for a in args {
        let (name, value) = parse_one(a)?;
        if !ir.params.iter().any(|p| p.name == name) {
            return Err(Fail(format!(
                "protocol `{}` has no parameter `{name}`; its parameters: {}",
                ir.name,
                names(ir)
            )));
        }
        env.insert(name, value);
    }
    Ok(env)
}

/// The protocol's parameter names, for messages.
pub fn names(ir: &Ir) -> String {
    if ir.params.is_empty() {
        return "none".into();
    }
    ir.params
        .iter()
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `NAME=VALUE`.
pub fn parse_one(arg: &str) -> Result<(String, u128), Fail> {
    let bad = |why: String| {
        Fail(format!(
            "bad parameter `{arg}`: {why} (write NAME=VALUE, e.g. m=2^20)"
        ))
    };
    let (name, value) = arg.split_once('=').ok_or_else(|| bad("no `=`".into()))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad(format!("`{name}` is not a parameter name")));
    }
    let v = value_of(value.trim()).map_err(bad)?;
    Ok((name.to_string(), v))
}

/// A value: `true`, `false`, or a product of powers and shifts of integers
/// (also the `--ots` of `otp bench`).
pub fn value_of(s: &str) -> Result<u128, String> {
    match s {
        "true" => return Ok(1),
        "false" => return Ok(0),
        "" => return Err("no value".into()),
        _ => {}
    }
    let mut acc: u128 = 1;
    for factor in s.split('*') {
        let f = if let Some((b, e)) = factor.split_once('^') {
            let (b, e) = (int(b)?, int(e)?);
            u32::try_from(e)
                .ok()
                .and_then(|e| b.checked_pow(e))
                .ok_or("too large")?
        } else if let Some((a, sh)) = factor.split_once("<<") {
            let (a, sh) = (int(a)?, int(sh)?);
            u32::try_from(sh)
                .ok()
                .filter(|&sh| sh < 128 && a.leading_zeros() >= sh)
                .map(|sh| a << sh)
                .ok_or("too large")?
        } else {
            int(factor)?
        };
        acc = acc.checked_mul(f).ok_or("too large")?;
    }
    Ok(acc)
}

fn int(s: &str) -> Result<u128, String> {
    let t = s.trim().replace('_', "");
    t.parse::<u128>()
        .map_err(|_| format!("`{}` is not a number", s.trim()))
}

#[cfg(test)]
mod tests {
    use super::parse_one;

    #[test]
    fn values() {
        for (a, v) in [
            ("m=2^20", 1u128 << 20),
            ("m=1<<20", 1 << 20),
            ("m=3*2^10", 3 << 10),
            ("m=1_000", 1000),
            ("sha1=true", 1),
        ] {
            assert_eq!(parse_one(a).ok().map(|x| x.1), Some(v), "{a}");
        }
        for a in ["m", "m=2^x", "=3", "m=", "m=2^200", "m=1<<200"] {
            assert!(parse_one(a).is_err(), "{a}");
        }
    }
}
