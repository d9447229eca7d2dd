//! Abort notices: the short, typed message a party that aborts sends to its
//! peers, best effort, before it hangs up.
//!
//! Without a notice, a party that aborts only hangs up, and a peer still
//! waiting for its next message sees "channel closed by peer" (or a
//! time-out) and cannot tell an honest party that caught a cheater from a
//! party that crashed or cheated itself. With one, the peer's receive
//! fails with [`ChannelError::PeerAborted`] carrying the round, the reason
//! and the parties the sender suspects (one: the party it blames; two: one
//! of them cheated, as when a broadcast's sender and a reporter disagree),
//! and an n-party run reports the culprit and *who said so*. A receiver
//! that is one of two suspects knows it is not the cheater itself, so it
//! blames the other ([`AbortNotice::blamed_at`]).
//!
//! # A notice is a claim, not evidence
//!
//! Nothing authenticates what a notice says beyond the link it came on: a
//! cheating party can send a notice that blames an honest party. Receivers
//! therefore report the notice together with the party that sent it, and
//! never treat it as proof; a protocol's own checks are the only evidence
//! of cheating.
//!
//! # On the wire
//!
//! A notice travels out of band of the protocol's frames, so that no
//! protocol message can be mistaken for one (and no notice for a message):
//! over TCP and TLS it is a frame whose 8-byte length header has its top
//! bit ([`NOTICE_BIT`]) set, over [`MemoryChannel`](super::MemoryChannel)
//! a queue item of its own. Its payload is [`AbortNotice::encode`]:
//!
//! ```text
//! version (1 byte, = 1) | suspects k (1 byte, 0..=2) | k suspects (u32 LE each, distinct)
//! | round length (1 byte) | round (UTF-8) | reason length (1 byte) | reason (UTF-8)
//! ```
//!
//! The decoder is strict ([`AbortNotice::decode`]): any other version, more
//! than two suspects or the same suspect twice, bytes that are not UTF-8, a length
//! that runs past the end or bytes left over make the notice malformed
//! ([`ChannelError::BadNotice`]), which a receiver reports as a failure of
//! the sender's link. At most [`MAX_NOTICE`] bytes are read.

use super::ChannelError;

/// The top bit of a TCP or TLS frame's length header: set, the frame is an
/// [`AbortNotice`] (its length is the low 63 bits), not a protocol message.
/// No protocol frame comes near 2^63 bytes.
pub const NOTICE_BIT: u64 = 1 << 63;

/// The longest text a notice carries per field (round, reason), in bytes;
/// longer text is cut at a character boundary.
pub const MAX_NOTICE_TEXT: usize = 255;

/// The longest encoded notice: the fixed fields plus two texts of
/// [`MAX_NOTICE_TEXT`] bytes.
pub const MAX_NOTICE: usize = 1 + 1 + 4 * MAX_SUSPECTS + 1 + MAX_NOTICE_TEXT + 1 + MAX_NOTICE_TEXT;

/// The most suspects a notice names: a failed check of one party's value
/// names one, an inconsistent broadcast two (the sender and the reporter).
pub const MAX_SUSPECTS: usize = 2;

/// The encoding version this runtime writes and accepts.
const VERSION: u8 = 1;

/// What a party that aborts tells its peers: where it stopped, why, and
/// whom it blames (see the [module docs](self): a claim, not evidence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbortNotice {
    /// The round the sender was in (empty if none applies, e.g. a bad
    /// parameter found before the first round).
    pub round: String,
    /// The sender's error, in words (at most [`MAX_NOTICE_TEXT`] bytes).
    pub reason: String,
    /// The parties the sender suspects, distinct, at most
    /// [`MAX_SUSPECTS`]: one if its error names the party to blame (a
    /// failed check of one party's value, a malformed message, a relayed
    /// notice's culprit); two if one of them cheated but the sender cannot
    /// tell which (a broadcast's sender and a party reporting another
    /// message from it); none if the failed check cannot tell who cheated.
    pub suspects: Vec<usize>,
}

impl AbortNotice {
    /// A notice for `round` and `reason` suspecting `suspects`; each text
    /// is cut to [`MAX_NOTICE_TEXT`] bytes at a character boundary; repeated
    /// suspects, suspects beyond the first [`MAX_SUSPECTS`] and indices
    /// beyond `u32::MAX` (no mesh has that many parties) are dropped.
    pub fn new(round: &str, reason: &str, suspects: &[usize]) -> AbortNotice {
        let mut kept: Vec<usize> = Vec::with_capacity(MAX_SUSPECTS);
        for &p in suspects {
            if kept.len() < MAX_SUSPECTS && u32::try_from(p).is_ok() && !kept.contains(&p) {
                kept.push(p);
            }
        }
        AbortNotice {
            round: cut(round).to_owned(),
            reason: cut(reason).to_owned(),
            suspects: kept,
        }
    }

    /// The party a receiver `me` can blame on this notice's word: the one
    /// suspect other than `me` (a receiver knows it did not cheat itself),
    /// `None` if that leaves none or two.
    pub fn blamed_at(&self, me: usize) -> Option<usize> {
        let mut others = self.suspects.iter().copied().filter(|&p| p != me);
        match (others.next(), others.next()) {
            (Some(p), None) => Some(p),
            _ => None,
        }
    }

    /// The wire form (see the [module docs](self)); at most [`MAX_NOTICE`]
    /// bytes. Texts longer than [`MAX_NOTICE_TEXT`] are cut.
    pub fn encode(&self) -> Vec<u8> {
        let (round, reason) = (cut(&self.round), cut(&self.reason));
        let kept = AbortNotice::new("", "", &self.suspects).suspects;
        let mut out = Vec::with_capacity(MAX_NOTICE);
        out.push(VERSION);
        out.push(kept.len() as u8);
        for p in kept {
            out.extend_from_slice(&(p as u32).to_le_bytes());
        }
        for text in [round, reason] {
            // `cut` keeps every text within a one-byte length.
            out.push(u8::try_from(text.len()).unwrap_or(u8::MAX));
            out.extend_from_slice(text.as_bytes());
        }
        out
    }

    /// Parses the wire form strictly: exactly the fields of
    /// [`AbortNotice::encode`], nothing more, or
    /// [`ChannelError::BadNotice`] naming what is wrong.
    pub fn decode(bytes: &[u8]) -> Result<AbortNotice, ChannelError> {
        let bad = |reason: &'static str| ChannelError::BadNotice { reason };
        let mut rest = bytes;
        let mut take = |n: usize| -> Result<&[u8], ChannelError> {
            if rest.len() < n {
                return Err(bad("shorter than its fields"));
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        if take(1)?[0] != VERSION {
            return Err(bad("unknown version"));
        }
        let count = usize::from(take(1)?[0]);
        if count > MAX_SUSPECTS {
            return Err(bad("more suspects than a notice names"));
        }
        let mut suspects = Vec::with_capacity(count);
        for _ in 0..count {
            let mut index = [0u8; 4];
            index.copy_from_slice(take(4)?);
            let index = u32::from_le_bytes(index) as usize;
            if suspects.contains(&index) {
                return Err(bad("the same suspect twice"));
            }
            suspects.push(index);
        }
        let mut text = || -> Result<String, ChannelError> {
            let len = usize::from(take(1)?[0]);
            std::str::from_utf8(take(len)?)
                .map(str::to_owned)
                .map_err(|_| bad("text is not UTF-8"))
        };
        let round = text()?;
        let reason = text()?;
        if !rest.is_empty() {
            return Err(bad("bytes after the last field"));
        }
        Ok(AbortNotice {
            round,
            reason,
            suspects,
        })
    }
}

impl std::fmt::Display for AbortNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("aborted")?;
        if !self.round.is_empty() {
            write!(f, " in round `{}`", self.round)?;
        }
        match self.suspects[..] {
            [] => f.write_str(", blaming no one")?,
            [c] => write!(f, ", blaming party {c}")?,
            [a, b, ..] => write!(f, ", blaming party {a} or party {b}")?,
        }
        write!(f, ": {}", self.reason)
    }
}

/// `text` cut to at most [`MAX_NOTICE_TEXT`] bytes at a character boundary.
fn cut(text: &str) -> &str {
    let mut end = text.len().min(MAX_NOTICE_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The payload length of a TCP or TLS frame header `announced` if it is a
/// notice's ([`NOTICE_BIT`] set), checked against [`MAX_NOTICE`].
pub(crate) fn notice_len(announced: u64) -> Option<Result<usize, ChannelError>> {
    if announced & NOTICE_BIT == 0 {
        return None;
    }
    let len = announced & !NOTICE_BIT;
    Some(match usize::try_from(len) {
        Ok(len) if len <= MAX_NOTICE => Ok(len),
        _ => Err(ChannelError::BadNotice {
            reason: "longer than a notice can be",
        }),
    })
}

/// The 8-byte frame header of a notice of `len` payload bytes.
pub(crate) fn notice_header(len: usize) -> [u8; 8] {
    (len as u64 | NOTICE_BIT).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for n in [
            AbortNotice::new("open", "Bad opening of P[2]", &[2]),
            AbortNotice::new("", "", &[]),
            AbortNotice::new("é".repeat(200).as_str(), &"x".repeat(1000), &[0, 7]),
        ] {
            let bytes = n.encode();
            assert!(bytes.len() <= MAX_NOTICE);
            assert_eq!(AbortNotice::decode(&bytes).unwrap(), n);
        }
    }

    #[test]
    fn long_text_is_cut_at_a_character_boundary() {
        let n = AbortNotice::new(&"é".repeat(200), "r", &[]);
        assert_eq!(n.round.len(), 254);
        assert!(n.round.chars().all(|c| c == 'é'));
    }

    #[test]
    fn every_malformed_notice_is_refused() {
        let good = AbortNotice::new("r", "why", &[1]).encode();
        let mut cases: Vec<Vec<u8>> = (0..good.len()).map(|k| good[..k].to_vec()).collect();
        let mut extra = good.clone();
        extra.push(0);
        cases.push(extra);
        // Version, suspect count (3; 0 leaves bytes over), the round's
        // first byte not UTF-8.
        for (at, value) in [(0, 2), (1, 3), (1, 0), (7, 0xff)] {
            let mut b = good.clone();
            b[at] = value;
            cases.push(b);
        }
        let mut twice = AbortNotice::new("r", "why", &[1, 2]).encode();
        twice[6..10].copy_from_slice(&1u32.to_le_bytes());
        cases.push(twice);
        for b in cases {
            assert!(
                matches!(AbortNotice::decode(&b), Err(ChannelError::BadNotice { .. })),
                "{b:?}"
            );
        }
    }

    #[test]
    fn a_receiver_among_two_suspects_blames_the_other() {
        let n = AbortNotice::new("r", "why", &[1, 2]);
        assert_eq!(n.blamed_at(1), Some(2));
        assert_eq!(n.blamed_at(0), None);
        assert_eq!(AbortNotice::new("r", "", &[2]).blamed_at(0), Some(2));
        assert_eq!(AbortNotice::new("r", "", &[2]).blamed_at(2), None);
        assert_eq!(AbortNotice::new("r", "", &[1, 1, 3, 4]).suspects, [1, 3]);
    }

    #[test]
    fn headers_mark_notices() {
        assert!(notice_len(5).is_none());
        let h = u64::from_le_bytes(notice_header(12));
        assert_eq!(notice_len(h).unwrap().unwrap(), 12);
        assert!(notice_len(NOTICE_BIT | (MAX_NOTICE as u64 + 1))
            .unwrap()
            .is_err());
        assert!(notice_len(u64::MAX).unwrap().is_err());
    }
}
