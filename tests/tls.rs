//! OT extension over `TlsChannel` (feature `tls`): the protocols run
//! unchanged over TLS 1.3 with mutual certificate authentication.
#![cfg(feature = "tls")]

use std::time::Duration;

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::local_pair_tls;
use ot::runtime::Bits;
use ot::{OtExtension, RandomOtReceiver, RandomOtSender};

#[test]
fn kos_and_iknp_over_tls() {
    let (mut a, mut b) = local_pair_tls(Duration::from_secs(30)).unwrap();
    for malicious in [false, true] {
        let n = 70_000;
        let choices = Bits::random(&mut Rng::from_entropy(), n);
        let ext = || {
            if malicious {
                OtExtension::kos()
            } else {
                OtExtension::iknp()
            }
        };
        let (pairs, got) = std::thread::scope(|s| {
            let h = s.spawn(|| ext().send_random(&mut a, n).unwrap());
            let got = ext().receive_random(&mut b, &choices).unwrap();
            (h.join().unwrap(), got)
        });
        for i in 0..n {
            assert_eq!(got[i], pairs[i][usize::from(choices.get(i))]);
        }
    }
}
