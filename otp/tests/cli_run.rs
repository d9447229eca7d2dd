//! `otp run`: sender and receiver as two processes over TCP loopback (and
//! TLS with feature `tls`) complete and agree; a peer running another
//! protocol, another OT count or the same role, an address that refuses or
//! does not resolve, and (TLS) a certificate from another CA exit 2. n
//! parties agree over the TCP mesh and (TLS) over the TLS mesh, where a
//! party whose certificate names another index is refused. Three Beaver
//! parties and their dealer (TCP and TLS) and two Orlandi triple makers
//! (TCP, 2048-bit keys) as separate processes check their results with each other.
//! MiniMac oblivious AES: `otp deal minimac_aes` files, then 2 and 3
//! parties (TCP, and 2 over TLS) encrypt as the `aes` crate does, runs
//! consume the files, and every bad option or file exits 2 before
//! connecting (files of different deals: at the hello).

mod common_cli;
use common_cli::otp;
use std::process::{Child, Command, Stdio};

/// A free loopback port (bound and released).
fn port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// Starts `otp ARGS` in the background.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_otp"))
        .args(args)
        .current_dir(common_cli::WORKSPACE_ROOT)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("otp starts")
}

/// Waits for a background `otp`: (exit code, stdout, stderr).
fn finish(c: Child) -> (i32, String, String) {
    let out = c.wait_with_output().expect("otp ends");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        err,
    )
}

/// Runs a listening sender with `listen` and a connecting receiver with
/// `connect` (both get the address): both results.
fn pair(listen: &[&str], connect: &[&str]) -> ((i32, String, String), (i32, String, String)) {
    let addr = format!("127.0.0.1:{}", port());
    let mut a = listen.to_vec();
    a.extend(["--listen", &addr, "--timeout", "20"]);
    let server = spawn(&a);
    let mut b = connect.to_vec();
    b.extend(["--connect", &addr, "--timeout", "20"]);
    let client = otp(&b);
    (finish(server), client)
}

#[test]
fn two_processes_over_tcp_complete_and_agree() {
    for proto in ["iknp", "kos", "co15"] {
        let ((sc, so, se), (rc, ro, re)) = pair(
            &["run", proto, "--role", "sender", "--ots", "2^12"],
            &["run", proto, "--role", "receiver", "--ots", "2^12"],
        );
        assert_eq!((sc, rc), (0, 0), "{proto}: {se} / {re}");
        for out in [&so, &ro] {
            assert!(out.contains("outputs agree"), "{out}");
            assert!(
                out.contains(&format!("{proto} ")) && out.contains("4096 OTs in"),
                "{out}"
            );
        }
    }
}

#[test]
fn a_peer_running_something_else_is_refused() {
    for (other, what) in [
        (
            ["run", "kos", "--role", "receiver", "--ots", "2^12"],
            "`kos` as Receiver",
        ),
        (
            ["run", "iknp", "--role", "receiver", "--ots", "2^13"],
            "with 8192 OTs",
        ),
        (
            ["run", "iknp", "--role", "sender", "--ots", "2^12"],
            "`iknp` as Sender",
        ),
    ] {
        let ((sc, _, se), (rc, _, re)) = pair(
            &["run", "iknp", "--role", "sender", "--ots", "2^12"],
            &other,
        );
        assert_eq!((sc, rc), (2, 2), "{se} / {re}");
        assert!(
            se.contains("the peer runs something else") && se.contains(what),
            "{se}"
        );
        assert!(re.contains("the peer runs something else"), "{re}");
    }
}

#[test]
fn bad_addresses_and_options_exit_2() {
    let refused = format!("127.0.0.1:{}", port());
    let connect_refused = format!("--connect {refused} --timeout 1");
    for (protocol, rest, msg) in [
        ("iknp", connect_refused.as_str(), "cannot connect to"),
        (
            "iknp",
            "--connect no.such.host.invalid:7000",
            "cannot connect to `no.such.host.invalid:7000`",
        ),
        (
            "iknp",
            "--listen 256.1.1.1:7000",
            "cannot listen on `256.1.1.1:7000`",
        ),
        ("iknp", "", "exactly one of --listen"),
        ("nope", "--listen 127.0.0.1:0", "unknown protocol `nope`"),
        ("iknp", "--listen 127.0.0.1:0 --ots x", "bad --ots `x`"),
    ] {
        let mut args = vec!["run", protocol, "--role", "sender"];
        args.extend(rest.split_whitespace());
        let (code, _, err) = otp(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

#[test]
fn n_parties_over_the_tcp_mesh_agree() {
    let peers: Vec<String> = (0..3).map(|_| format!("127.0.0.1:{}", port())).collect();
    let peers = peers.join(",");
    let others: Vec<Child> = (1..3)
        .map(|i| {
            let (i, x) = (i.to_string(), (10 * i).to_string());
            spawn(&[
                "run", "sum_n", "--party", &i, "--peers", &peers, "--input", &x,
            ])
        })
        .collect();
    let (code, out, err) = otp(&[
        "run", "sum_n", "--party", "0", "--peers", &peers, "--input", "5",
    ]);
    assert_eq!(code, 0, "{err}");
    for (c, o, e) in std::iter::once((code, out, err)).chain(others.into_iter().map(finish)) {
        assert_eq!(c, 0, "{e}");
        assert!(
            o.contains("of 3: sum = 35") && o.contains("outputs agree with all 2 peers"),
            "{o}"
        );
    }
    refused(&[
        (
            "run iknp --party 0 --peers a:1,b:1",
            "`iknp` is not an n-party protocol",
        ),
        (
            "run sum_n --party 2 --peers a:1,b:1",
            "need at least 2 addresses",
        ),
        (
            "run sum_n --party 0 --peers 127.0.0.1:0,no.such.host.invalid:1 --input 1",
            "cannot resolve peer address `no.such.host.invalid:1`",
        ),
        ("run iknp", "give --role sender|receiver"),
    ]);
}

/// `otp run` arguments for endpoint `who` of a Beaver mesh: `None` is the
/// dealer, `Some(i)` party i with input shares `(i + 1, 2i + 3)`.
fn beaver_args(who: Option<usize>, peers: &str) -> Vec<String> {
    let mut v: Vec<String> = ["run", "beaver_dealer", "--peers", peers, "--timeout", "20"]
        .map(String::from)
        .to_vec();
    match who {
        None => v.push("--dealer".into()),
        Some(i) => v.extend([
            "--party".into(),
            i.to_string(),
            "--input".into(),
            format!("{},{}", i + 1, 2 * i + 3),
        ]),
    }
    v
}

#[test]
fn beaver_parties_and_their_dealer_as_four_processes_multiply() {
    let peers: Vec<String> = (0..4).map(|_| format!("127.0.0.1:{}", port())).collect();
    let peers = peers.join(",");
    let children: Vec<Child> = [Some(1), Some(2), None]
        .into_iter()
        .map(|who| spawn(&refs(&beaver_args(who, &peers))))
        .collect();
    let first = otp(&refs(&beaver_args(Some(0), &peers)));
    let mut all = vec![first];
    all.extend(children.into_iter().map(finish));
    // x = 1 + 2 + 3 = 6, y = 3 + 5 + 7 = 15.
    for (code, out, err) in &all[..3] {
        assert_eq!(*code, 0, "{err}");
        assert!(
            out.contains("x·y = 90 (x = 6, y = 15, checked)")
                && out.contains("outputs agree with all 2 peers"),
            "{out}"
        );
    }
    let (code, out, err) = &all[3];
    assert_eq!(*code, 0, "{err}");
    assert!(out.contains("dealer of 3 parties: dealt"), "{out}");
    refused(&[
        (
            "run sum_n --dealer --peers a:1,b:1,c:1",
            "`sum_n` has no dealer",
        ),
        (
            "run beaver_dealer --dealer --party 1 --peers a:1,b:1,c:1",
            "either --party I or --dealer",
        ),
        (
            "run beaver_dealer --dealer --peers a:1,b:1",
            "need at least 2 party addresses and the dealer's last",
        ),
        (
            "run beaver_dealer --party 2 --peers a:1,b:1,c:1 --input 1,2",
            "an index below the number of parties (2)",
        ),
        (
            "run beaver_dealer --party 0 --peers a:1,b:1,c:1 --input 1",
            "--input X,Y",
        ),
        (
            "run beaver_dealer --dealer --peers a:1,b:1,c:1 --input 1",
            "the dealer of beaver_dealer takes no --input",
        ),
    ]);
}

#[test]
fn orlandi_triples_made_by_two_processes_open_to_products() {
    let peers: Vec<String> = (0..2).map(|_| format!("127.0.0.1:{}", port())).collect();
    let peers = peers.join(",");
    let args = |i: &'static str| {
        [
            "run",
            "orlandi_triple",
            "--party",
            i,
            "--peers",
            &peers,
            "--triples",
            "2",
            "--key-bits",
            // Party 1 with VIFF's key size (unpacked γ), party 0 the default.
            if i == "1" { "1024" } else { "2048" },
            "--timeout",
            "300",
        ]
        .map(String::from)
        .to_vec()
    };
    let other = spawn(&refs(&args("1")));
    let first = otp(&refs(&args("0")));
    for (code, out, err) in [first, finish(other)] {
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("2 triples opened, c = a·b for all")
                && out.contains("outputs agree with all 1 peer"),
            "{out}"
        );
    }
    refused(&[
        (
            "run orlandi_triple --party 0 --peers a:1,b:1 --key-bits 512",
            "the preprocessing's Paillier key sizes are 1024, 2048 and 3072",
        ),
        (
            "run orlandi_triple --party 0 --peers a:1,b:1 --triples 0",
            "--triples 0",
        ),
    ]);
}

/// A fresh directory for one test's preprocessing files.
fn prep_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("otp-cli-mm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `otp deal minimac_aes` into `dir` (k = 4: small files): the file of
/// each party.
fn deal_files(dir: &std::path::Path, parties: usize, blocks: usize, extra: &[&str]) -> Vec<String> {
    let (n, b) = (parties.to_string(), blocks.to_string());
    let d = dir.display().to_string();
    let mut args = vec![
        "deal",
        "minimac_aes",
        "--parties",
        &n,
        "--blocks",
        &b,
        "--k",
        "4",
        "--out",
        &d,
    ];
    args.extend(extra);
    let (code, out, err) = otp(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("send each file to its party only"), "{out}");
    let files: Vec<String> = (0..parties)
        .map(|i| {
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("party {i}: ")))
                .unwrap_or_else(|| panic!("party {i}'s file in {out}"));
            let path = &line[format!("party {i}: ").len()..];
            path[..path.rfind(" (").expect("size")].to_string()
        })
        .collect();
    files
}

fn hex16(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A random key, its XOR shares for `parties` and `blocks` random plaintexts.
fn aes_inputs(parties: usize, blocks: usize) -> ([u8; 16], Vec<[u8; 16]>, Vec<[u8; 16]>) {
    use rand_core::RngCore;
    let mut rng = ot::runtime::primitives::rng::Rng::from_entropy();
    let mut r = || {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        b
    };
    let shares: Vec<[u8; 16]> = (0..parties).map(|_| r()).collect();
    let key = shares
        .iter()
        .fold([0u8; 16], |k, s| std::array::from_fn(|i| k[i] ^ s[i]));
    (key, shares, (0..blocks).map(|_| r()).collect())
}

/// AES-128 from the `aes` crate.
fn aes_ref(key: &[u8; 16], pt: &[u8; 16]) -> [u8; 16] {
    use aes::cipher::{BlockEncrypt, KeyInit};
    let mut b = (*pt).into();
    aes::Aes128::new(key.into()).encrypt_block(&mut b);
    b.into()
}

/// `otp run minimac_aes` arguments of party `i` (party 0 with the
/// plaintexts, the others with their count), plus `extra`.
fn mm_args(
    i: usize,
    peers: &str,
    file: &str,
    share: &[u8; 16],
    pts: &[[u8; 16]],
    extra: &[String],
) -> Vec<String> {
    let mut v: Vec<String> = ["run", "minimac_aes", "--peers", peers, "--timeout", "60"]
        .map(String::from)
        .to_vec();
    v.extend([
        "--party".into(),
        i.to_string(),
        "--prep".into(),
        file.into(),
    ]);
    v.extend(["--key-share".into(), hex16(share)]);
    if i == 0 && pts.len() > 3 {
        // Longer batches from a file, one block a line.
        let lines: Vec<String> = pts.iter().map(|p| hex16(p)).collect();
        let path = format!("{file}.plaintexts");
        std::fs::write(&path, lines.join("\n")).expect("plaintext file");
        v.extend(["--input-file".into(), path]);
    } else if i == 0 {
        let inputs: Vec<String> = pts.iter().map(|p| hex16(p)).collect();
        v.extend(["--input".into(), inputs.join(",")]);
    } else {
        v.extend(["--blocks".into(), pts.len().to_string()]);
    }
    v.extend(extra.iter().cloned());
    v
}

/// Runs every party of one oblivious encryption as its own process
/// (`extra(i)`: more options of party i): each party's result.
fn mm_run(
    files: &[String],
    shares: &[[u8; 16]],
    pts: &[[u8; 16]],
    extra: impl Fn(usize) -> Vec<String>,
) -> Vec<(i32, String, String)> {
    let peers: Vec<String> = files
        .iter()
        .map(|_| format!("127.0.0.1:{}", port()))
        .collect();
    let peers = peers.join(",");
    let children: Vec<Child> = (0..files.len())
        .map(|i| {
            spawn(&refs(&mm_args(
                i,
                &peers,
                &files[i],
                &shares[i],
                pts,
                &extra(i),
            )))
        })
        .collect();
    children.into_iter().map(finish).collect()
}

/// Party 0 printed the `aes` crate's ciphertexts of `pts` under `key`,
/// and every party finished (checked, unless `checked` is false).
fn assert_aes(results: &[(i32, String, String)], key: &[u8; 16], pts: &[[u8; 16]], checked: bool) {
    for (i, (code, out, err)) in results.iter().enumerate() {
        assert_eq!(*code, 0, "party {i}: {err}");
        assert!(out.contains(&format!("{} block", pts.len())), "{out}");
        assert_eq!(
            out.contains("checked against AES-128 under the combined key")
                && out.contains(&format!(
                    "outputs agree with all {} peer",
                    results.len() - 1
                )),
            checked,
            "{out}"
        );
        let cts: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("ciphertext "))
            .collect();
        if i > 0 {
            assert!(cts.is_empty(), "party {i} got ciphertexts: {out}");
            continue;
        }
        assert_eq!(cts.len(), pts.len(), "{out}");
        for (b, pt) in pts.iter().enumerate() {
            let want = format!("ciphertext {b}: {}", hex16(&aes_ref(key, pt)));
            assert_eq!(cts[b], want, "{out}");
        }
    }
}

#[test]
fn minimac_aes_parties_as_processes_encrypt_like_aes_and_consume_their_files() {
    for (parties, seeded) in [(2, false), (3, true)] {
        let dir = prep_dir(&format!("tcp{parties}"));
        let extra: &[&str] = if seeded { &["--seeded"] } else { &[] };
        // 8 blocks of k = 4: two groups.
        let files = deal_files(&dir, parties, 8, extra);
        // 3 blocks (one group), then 4 blocks (from a file) without the
        // check (the other group).
        let (key, shares, pts) = aes_inputs(parties, 3);
        assert_aes(&mm_run(&files, &shares, &pts, |_| vec![]), &key, &pts, true);
        let (key, shares, pts) = aes_inputs(parties, 4);
        let no_check = |_| vec!["--no-check".to_string()];
        assert_aes(&mm_run(&files, &shares, &pts, no_check), &key, &pts, false);
        // Every party's file is used up: refused before connecting.
        for (i, f) in files.iter().enumerate() {
            let args = mm_args(
                i,
                "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3",
                f,
                &shares[0],
                &pts,
                &[],
            );
            let mut args = refs(&args);
            if parties == 2 {
                args[3] = "127.0.0.1:1,127.0.0.1:2";
            }
            let (code, _, err) = otp(&args);
            assert_eq!(code, 2, "{err}");
            assert!(err.contains("is consumed"), "{err}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn minimac_aes_bad_options_and_files_exit_2_before_connecting() {
    let dir = prep_dir("bad");
    // One group of k = 4 for 2 parties; one for 3 parties.
    let two = deal_files(&dir.join("two"), 2, 4, &[]);
    let three = deal_files(&dir.join("three"), 3, 4, &["--seeded"]);
    let (truncated, garbage) = (dir.join("truncated.prep"), dir.join("garbage.prep"));
    let bytes = std::fs::read(&two[0]).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() - 5]).unwrap();
    std::fs::write(
        &garbage,
        b"this is not a preprocessing file at all, but longer than a header..",
    )
    .unwrap();
    let (t, g) = (
        truncated.display().to_string(),
        garbage.display().to_string(),
    );
    let key = "00112233445566778899aabbccddeeff";
    let p0 = |file: &str, rest: &str| {
        format!("run minimac_aes --party 0 --peers 127.0.0.1:1,127.0.0.1:2 --prep {file} --key-share {key} {rest}")
    };
    let p1 = |file: &str, rest: &str| {
        format!("run minimac_aes --party 1 --peers 127.0.0.1:1,127.0.0.1:2 --prep {file} --key-share {key} {rest}")
    };
    let one = format!("--input {key}");
    let cases: Vec<(String, &str)> = vec![
        (p0(&two[1], &one), "is party 1's file, this is party 0"),
        (p0(&three[0], &one), "was dealt for 3 parties, --peers names 2"),
        (
            p0(&two[0], &format!("--input {}", [key; 5].join(","))),
            "has material for 4 more blocks (1 groups of k = 4), this run of 5 blocks needs 2",
        ),
        (p0("no/such.prep", &one), "--prep `no/such.prep`: MiniMac preprocessing"),
        (p0(&t, &one), "truncated or corrupt"),
        (p0(&g, &one), "not a preprocessing file"),
        (p0(&two[0], ""), "party 0 needs its plaintexts: --input"),
        (p0(&two[0], "--input 0011"), "bad --input `0011`: 32 hex digits"),
        (
            p0(&two[0], "--input 00112233445566778899aabbccddeezz"),
            "bad --input `00112233445566778899aabbccddeezz`",
        ),
        (p0(&two[0], &format!("{one} --blocks 2")), "--blocks 2, but 1 plaintexts"),
        (p1(&two[1], &one), "only party 0 gives plaintexts"),
        (p0(&two[0], "--input-file no/such.txt"), "cannot read --input-file `no/such.txt`"),
        (p0(&two[0], &format!("--input-file {g}")), "bad --input-file"),
        (p0(&two[0], &format!("{one} --input-file {g}")), "not both"),
        (p1(&two[1], ""), "need --blocks B"),
        (
            p1(&two[1], "--blocks 18446744073709551615"),
            "this run of 18446744073709551615 blocks needs",
        ),
        (
            format!("run minimac_aes --party 0 --peers a:1,b:1 --prep {} {one}", two[0]),
            "needs --key-share HEX",
        ),
        (
            format!("run minimac_aes --party 0 --peers a:1,b:1 --prep {} {one} --key-share 0g112233445566778899aabbccddeeff", two[0]),
            "bad --key-share `0g112233445566778899aabbccddeeff`",
        ),
        (
            format!("run minimac_aes --party 0 --peers a:1,b:1 --prep {} {one} --key-share 00", two[0]),
            "bad --key-share `00`: 32 hex digits (16 bytes) expected",
        ),
        (
            format!("run minimac_aes --party 0 --peers a:1,b:1 --key-share {key} {one}"),
            "needs --prep FILE",
        ),
        (
            format!("run sum_n --party 0 --peers a:1,b:1 --input 1 --prep {}", two[0]),
            "--prep is for minimac_aes",
        ),
        ("run sum_n --party 0 --peers a:1,b:1 --input x".into(), "bad --input `x`: a u64"),
        ("deal minimac_aes --parties 1 --blocks 1 --out x".into(), "--parties 1: at least 2"),
        ("deal minimac_aes --parties 2 --blocks 0 --out x".into(), "--blocks must be at least 1"),
        ("deal minimac_aes --parties 2 --blocks 1 --k 86 --out x".into(), "--k 86: 1 to 85"),
        (
            format!("deal minimac_aes --parties 2 --blocks 18446744073709551615 --out {}", dir.join("huge").display()),
            "dealing: MiniMac preprocessing",
        ),
        ("deal sum_n --parties 2 --blocks 1 --out x".into(), "not `sum_n`"),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(a, m)| (a.as_str(), *m)).collect();
    refused(&cases);
    // Each party's own file, but from different deals: refused at the
    // hello, before the protocol.
    let other = deal_files(&dir.join("other"), 2, 4, &[]);
    let (_, shares, pts) = aes_inputs(2, 1);
    let results = mm_run(
        &[two[0].clone(), other[1].clone()],
        &shares,
        &pts,
        |_| vec![],
    );
    for (code, out, err) in &results {
        assert_eq!(*code, 2, "{out} {err}");
        assert!(err.contains("from another deal"), "{err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Each `otp` command line exits 2 with a message containing its text.
fn refused(cases: &[(&str, &str)]) {
    for (args, msg) in cases {
        let args: Vec<&str> = args.split_whitespace().collect();
        let (code, _, err) = otp(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[cfg(feature = "tls")]
mod tls {
    use super::{beaver_args, finish, pair, port, refs, spawn};
    use ot::runtime::transport::channel::TestPki;
    use std::path::PathBuf;

    /// Writes a CA and certificates for `party-a` and `party-b`: the CA
    /// file, then each party's certificate and key files.
    fn pki(dir: &PathBuf) -> Vec<String> {
        pki_for(dir, &["party-a", "party-b"])
    }

    /// Writes a CA and a certificate and key for each of `names`.
    fn pki_for(dir: &PathBuf, names: &[&str]) -> Vec<String> {
        std::fs::create_dir_all(dir).unwrap();
        let pki = TestPki::generate(names).unwrap();
        let ca = dir.join("ca.pem");
        std::fs::write(&ca, &pki.ca_pem).unwrap();
        let mut files = vec![ca.display().to_string()];
        for (name, cert, key) in &pki.parties {
            let (c, k) = (
                dir.join(format!("{name}.pem")),
                dir.join(format!("{name}.key")),
            );
            std::fs::write(&c, cert).unwrap();
            std::fs::write(&k, key).unwrap();
            files.extend([c.display().to_string(), k.display().to_string()]);
        }
        files
    }

    #[test]
    fn two_processes_over_tls_agree_and_another_ca_is_refused() {
        let base = std::env::temp_dir().join(format!("otp-cli-tls-{}", std::process::id()));
        let f = pki(&base.join("one"));
        let g = pki(&base.join("two"));
        let (ca, a_cert, a_key, b_cert, b_key) = (&f[0], &f[1], &f[2], &f[3], &f[4]);
        // (role, certificate, key, CA), as `otp run kos` arguments.
        let args = |role: &'static str, cert: &str, key: &str, ca: &str| -> Vec<String> {
            let mut v: Vec<String> = ["run", "kos", "--role", role, "--ots", "2^12"]
                .map(String::from)
                .to_vec();
            for (flag, value) in [("--cert", cert), ("--key", key), ("--peer-ca", ca)] {
                v.extend([flag.to_string(), value.to_string()]);
            }
            if role == "receiver" {
                v.extend(["--peer-name".to_string(), "party-a".to_string()]);
            }
            v
        };
        let sender = args("sender", a_cert, a_key, ca);
        let receiver = args("receiver", b_cert, b_key, ca);
        let ((sc, so, se), (rc, ro, re)) = pair(&refs(&sender), &refs(&receiver));
        assert_eq!((sc, rc), (0, 0), "{se} / {re}");
        assert!(
            so.contains("outputs agree") && ro.contains("outputs agree"),
            "{so} {ro}"
        );
        // The receiver's certificate comes from another CA: refused.
        let stranger = args("receiver", &g[3], &g[4], ca);
        let ((sc, _, se), (rc, _, re)) = pair(&refs(&sender), &refs(&stranger));
        assert_eq!((sc, rc), (2, 2), "{se} / {re}");
        assert!(se.contains("TLS"), "{se}");
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn n_parties_over_the_tls_mesh_agree_and_a_wrong_identity_is_refused() {
        let base = std::env::temp_dir().join(format!("otp-cli-tlsmesh-{}", std::process::id()));
        let f = pki_for(&base, &["party-0", "party-1", "party-2"]);
        let ca = f[0].clone();
        // Party i's certificate and key files; `cert_of` picks whose
        // certificate party i presents.
        let run = |cert_of: [usize; 3]| {
            let peers: Vec<String> = (0..3).map(|_| format!("127.0.0.1:{}", port())).collect();
            let peers = peers.join(",");
            let children: Vec<_> = (0..3)
                .map(|i| {
                    let (c, k) = (&f[1 + 2 * cert_of[i]], &f[2 + 2 * cert_of[i]]);
                    let (i, x) = (i.to_string(), (10 * i + 1).to_string());
                    spawn(&[
                        "run",
                        "sum_n",
                        "--party",
                        &i,
                        "--peers",
                        &peers,
                        "--input",
                        &x,
                        "--cert",
                        c,
                        "--key",
                        k,
                        "--peer-ca",
                        &ca,
                        "--timeout",
                        "20",
                    ])
                })
                .collect();
            children.into_iter().map(finish).collect::<Vec<_>>()
        };
        for (code, out, err) in run([0, 1, 2]) {
            assert_eq!(code, 0, "{err}");
            assert!(
                out.contains("of 3: sum = 33") && out.contains("outputs agree with all 2 peers"),
                "{out}"
            );
        }
        // Party 2 presents party 1's certificate: refused by the party it
        // dials (the index claim and the certificate disagree), and nobody
        // computes an output.
        let results = run([0, 1, 1]);
        assert!(
            results
                .iter()
                .all(|(code, out, _)| *code == 2 && !out.contains("sum =")),
            "{results:?}"
        );
        assert!(
            results.iter().any(|(_, _, err)| err.contains("TLS mesh")),
            "{results:?}"
        );
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn minimac_aes_parties_over_the_tls_mesh_encrypt_like_aes() {
        let base = std::env::temp_dir().join(format!("otp-cli-tlsmm-{}", std::process::id()));
        let f = pki_for(&base.join("pki"), &["party-0", "party-1"]);
        let files = super::deal_files(&base.join("prep"), 2, 2, &["--seeded"]);
        let (key, shares, pts) = super::aes_inputs(2, 2);
        let tls = |i: usize| {
            [
                "--cert",
                &f[1 + 2 * i],
                "--key",
                &f[2 + 2 * i],
                "--peer-ca",
                &f[0],
            ]
            .map(String::from)
            .to_vec()
        };
        let results = super::mm_run(&files, &shares, &pts, tls);
        super::assert_aes(&results, &key, &pts, true);
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn beaver_parties_and_dealer_over_the_tls_mesh_multiply() {
        let base = std::env::temp_dir().join(format!("otp-cli-tlsdealer-{}", std::process::id()));
        // The dealer is endpoint 3: its certificate names `party-3`.
        let f = pki_for(&base, &["party-0", "party-1", "party-2", "party-3"]);
        let peers: Vec<String> = (0..4).map(|_| format!("127.0.0.1:{}", port())).collect();
        let peers = peers.join(",");
        let children: Vec<_> = [Some(0), Some(1), Some(2), None]
            .into_iter()
            .enumerate()
            .map(|(e, who)| {
                let mut args = beaver_args(who, &peers);
                for (flag, value) in [
                    ("--cert", &f[1 + 2 * e]),
                    ("--key", &f[2 + 2 * e]),
                    ("--peer-ca", &f[0]),
                ] {
                    args.extend([flag.to_string(), value.clone()]);
                }
                spawn(&refs(&args))
            })
            .collect();
        let results: Vec<_> = children.into_iter().map(finish).collect();
        for (code, out, err) in &results {
            assert_eq!(*code, 0, "{err}");
            assert!(out.contains("x·y = 90") || out.contains("dealt"), "{out}");
        }
        let _ = std::fs::remove_dir_all(base);
    }
}
