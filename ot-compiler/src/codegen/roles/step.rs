//! The generated code of one step of a role (see `steps.rs`, which makes
//! it, and the role module, which assembles the drivers from it).

use proc_macro2::TokenStream;

/// The generated code of one step.
pub(super) struct Step {
    /// The step method (and its `Incoming`/`Outgoing` impl).
    pub(super) code: TokenStream,
    /// The blocking driver's statements running the step over a channel.
    pub(super) driver: TokenStream,
    /// The async twin of the step method, if it takes the channel (gated).
    pub(super) async_code: TokenStream,
    /// The async driver's statements, or None if the step has no async
    /// twin (a sub-protocol call through a trait without async methods).
    pub(super) async_driver: Option<TokenStream>,
    /// The step's entry in the role's transcript.
    pub(super) transcript: TokenStream,
    /// Whether the step reads from the channel (a receive, a streamed
    /// receive, a sub-protocol call): the peer's session binding is checked
    /// before the first such step.
    pub(super) reads: bool,
    /// Whether the step sends (a message, a streamed send, a sub-protocol
    /// call): the driver announces the frame it receives next before it.
    pub(super) sends: bool,
    /// For a step that reads: the payload length of its first frame as an
    /// `Option<usize>` expression over the driver's state `__s` (`None`:
    /// not known before the step, e.g. a sub-protocol's own frames), for
    /// [`Channel::expect_next_frame`](ot_runtime::transport::channel::Channel).
    pub(super) first_frame: TokenStream,
}
