//! `otp run`: sender and receiver as two processes over TCP loopback (and
//! TLS with feature `tls`) complete and agree; a peer running another
//! protocol, another OT count or the same role, an address that refuses or
//! does not resolve, and (TLS) a certificate from another CA exit 2. n
//! parties agree over the TCP mesh and (TLS) over the TLS mesh, where a
//! party whose certificate names another index is refused. Three Beaver
//! parties and their dealer (TCP and TLS) and two Orlandi triple makers
//! (TCP, 2048-bit keys) as separate processes check their results with each other.

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
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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
            "2048",
            "--timeout",
            "60",
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
            "run orlandi_triple --party 0 --peers a:1,b:1 --key-bits 1024",
            "the preprocessing's Paillier key sizes are 2048 and 3072",
        ),
        (
            "run orlandi_triple --party 0 --peers a:1,b:1 --triples 0",
            "--triples 0",
        ),
    ]);
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
    use ot::runtime::channel::TestPki;
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
