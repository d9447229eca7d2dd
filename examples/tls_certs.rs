//! Writes a throwaway certificate authority and one certificate and key per
//! party, in PEM, for trying the TLS channel between machines (a deployment
//! uses certificates from its own CA).
//!
//! ```sh
//! cargo run --features tls --example tls_certs -- certs/ party-a party-b
//! # -> certs/ca.pem, certs/party-a.pem, certs/party-a.key, certs/party-b.pem, ...
//! ```
//!
//! Each party loads its own pair with `TlsIdentity::from_pem_files` (the
//! facade's `ot::files::TlsIdentityFile`) and
//! trusts `ca.pem` with `TlsTrust::from_pem_file`; the connecting party
//! names the listener ("party-a") in `TlsChannel::connect`.

use std::path::Path;
use std::process::ExitCode;

use ot::runtime::transport::channel::TestPki;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((dir, names)) = args.split_first().filter(|(_, n)| !n.is_empty()) else {
        eprintln!("usage: tls_certs DIR NAME...");
        return ExitCode::from(2);
    };
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let dir = Path::new(dir);
    let res = TestPki::generate(&names)
        .map_err(|e| e.to_string())
        .and_then(|pki| {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            let write = |file: String, text: &str| {
                std::fs::write(dir.join(&file), text).map_err(|e| format!("{file}: {e}"))
            };
            write("ca.pem".into(), &pki.ca_pem)?;
            for (name, cert, key) in &pki.parties {
                write(format!("{name}.pem"), cert)?;
                write(format!("{name}.key"), key)?;
            }
            Ok(())
        });
    match res {
        Ok(()) => {
            println!(
                "wrote {}/ca.pem and a certificate and key per party",
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tls_certs: {e}");
            ExitCode::from(2)
        }
    }
}
