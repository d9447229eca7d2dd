//! The middle floor: how parties talk and how a run is framed, with no
//! protocol kernel in it. [`channel`] (two parties) and [`mesh`] (n parties)
//! carry length-bounded frames over memory, TCP, TLS or async streams;
//! [`wire`] is the fixed-size codec of message fields; [`bind`] and
//! [`session`] are the session glue of generated two-party roles (binding to
//! the peer's protocol and parameters, the step transcript, [`run_pair`](session::run_pair));
//! [`mpc`] is the n-party counterpart (session block, broadcast digests,
//! coin-flip hash, additive sharing of the generated `role P[n]` code); and
//! [`limits`] is the memory budget every decoder and `Params::new` checks.
//! The code generated from `.otp` files names these modules directly for
//! every send, receive and check, so they are kept apart from the kernels.

pub mod bind;
pub mod channel;
pub mod limits;
pub mod mesh;
pub mod mpc;
pub mod session;
pub mod wire;
