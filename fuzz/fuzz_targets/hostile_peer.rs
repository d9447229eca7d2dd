//! A real protocol party against a hostile peer whose every frame comes
//! from the fuzzer: the party must end with `Ok` or a typed error, never
//! panic, hang or allocate without bound. The first byte picks the party
//! (KOS sender or receiver over CO15 or MR19 base OTs, a chosen-message KOS
//! party, a Delta-KOS pair half, a malicious SoftSpokenOT party with k = 2
//! or 4, a Ferret party of `OtExtension::silent()` or `silent_malicious()`:
//! its SoftSpokenOT set-up, a set-up batch and `finish`, then the random-OT
//! conversion), the second the number of OTs (1..=256);
//! the rest is a sequence of frames, each a little-endian `u16` length and
//! that many bytes. Frames the party sends are dropped, except session
//! bindings, which the peer answers with the dual binding (so the script
//! reaches the protocol's messages); when the script runs out the peer has
//! hung up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, ChannelError, ChannelStats};
use ot::runtime::{Bits, Block};
use ot::{BaseOtKind, OtExtension, OtReceiver, OtSender, RandomOtReceiver, RandomOtSender};

/// A channel whose peer is a script of frames.
struct ScriptedPeer<'a> {
    script: &'a [u8],
    stats: ChannelStats,
    /// Dual bindings of the bindings the party sent, delivered first.
    bindings: std::collections::VecDeque<Vec<u8>>,
}

impl Channel for ScriptedPeer<'_> {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        self.stats.bytes_sent += msg.len() as u64;
        self.stats.messages_sent += 1;
        if let Some(dual) = ot::runtime::transport::bind::dual_frame(msg) {
            self.bindings.push_back(dual);
        }
        Ok(())
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        buf.clear();
        if let Some(b) = self.bindings.pop_front() {
            buf.extend_from_slice(&b);
            return Ok(());
        }
        let [lo, hi, rest @ ..] = self.script else {
            return Err(ChannelError::Closed);
        };
        let len = usize::from(u16::from_le_bytes([*lo, *hi]));
        if len > max_len {
            return Err(ChannelError::Oversized {
                len: len as u64,
                max: max_len,
            });
        }
        if rest.len() < len {
            return Err(ChannelError::Truncated {
                expected: len,
                got: rest.len(),
            });
        }
        buf.extend_from_slice(&rest[..len]);
        self.script = &rest[len..];
        self.stats.bytes_received += len as u64;
        self.stats.messages_received += 1;
        Ok(())
    }

    fn stats(&self) -> ChannelStats {
        self.stats
    }
}

fuzz_target!(|data: &[u8]| {
    let [which, n, script @ ..] = data else {
        return;
    };
    let n = usize::from(*n) + 1;
    let mut peer = ScriptedPeer {
        script,
        stats: ChannelStats::default(),
        bindings: Default::default(),
    };
    let base = if which & 1 == 0 {
        BaseOtKind::Co15
    } else {
        BaseOtKind::Mr19
    };
    let mut party = OtExtension::kos().with_semi_honest_base_insecure(base);
    let mut rng = Rng::deterministic_for_tests(u64::from(*which));
    let choices = Bits::random(&mut rng, n);
    // The outcome does not matter, only that there is one.
    let k = if which & 0x80 == 0 { 2 } else { 4 };
    let silent = || {
        if which & 0x80 == 0 {
            OtExtension::silent()
        } else {
            OtExtension::silent_malicious()
        }
    };
    match (which >> 1) % 10 {
        0 => drop(party.send_random(&mut peer, n)),
        1 => drop(party.receive_random(&mut peer, &choices)),
        2 => {
            let messages = vec![[Block::ZERO, Block::ONES]; n];
            drop(party.send(&mut peer, &messages));
        }
        3 => drop(party.receive(&mut peer, &choices)),
        6 => drop(
            OtExtension::softspoken_malicious(k)
                .with_semi_honest_base_insecure(base)
                .send_random(&mut peer, n),
        ),
        7 => drop(
            OtExtension::softspoken_malicious(k)
                .with_semi_honest_base_insecure(base)
                .receive_random(&mut peer, &choices),
        ),
        8 => drop(silent().send_random(&mut peer, n)),
        9 => drop(silent().receive_random(&mut peer, &choices)),
        4 => {
            let mut sender =
                ot::DeltaOtSender::kos(Block::ONES).with_semi_honest_base_insecure(base);
            drop(ot::CorrelatedOtSender::send_correlated(
                &mut sender,
                &mut peer,
                n,
            ));
        }
        _ => {
            let mut receiver = ot::DeltaOtReceiver::kos().with_semi_honest_base_insecure(base);
            drop(ot::CorrelatedOtReceiver::receive_correlated(
                &mut receiver,
                &mut peer,
                &choices,
            ));
        }
    }
});
