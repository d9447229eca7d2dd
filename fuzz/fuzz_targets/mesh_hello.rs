//! The n-party session hello fed by a hostile peer: party 1 of a two-party
//! in-memory mesh sends the fuzzer's bytes as its hello frame; party 0's
//! `handshake` must end with `Ok` (only for a frame that is exactly the
//! matching hello) or a typed error, never panic. The first input byte
//! picks the protocol name's length in our own hello (so the frame lengths
//! the decoder expects vary), the rest is the peer's frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ot::runtime::transport::mesh::{handshake, Hello, MemoryMesh, Mesh};

fuzz_target!(|data: &[u8]| {
    let [name_len, frame @ ..] = data else {
        return;
    };
    let mut meshes = MemoryMesh::new(2);
    let (Some(mut peer), Some(mut me)) = (meshes.pop(), meshes.pop()) else {
        return;
    };
    let hello = Hello {
        protocol: "p".repeat(usize::from(*name_len % 32) + 1),
        spec_hash: [7; 32],
        params: vec![1, 2, 3],
        session: [9; 16],
    };
    if peer.send_to(0, frame).is_err() {
        return;
    }
    let res = handshake(&mut me, &hello);
    if res.is_ok() {
        // Only the matching hello passes: ours, as party 1 would send it.
        assert!(!frame.is_empty(), "an empty frame was accepted as a hello");
    }
    drop(peer);
});
