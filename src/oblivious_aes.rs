//! Oblivious AES-128 on MiniMac from a party's dealt preprocessing: the
//! glue that runs the two generated protocols in sequence, as
//! `examples/oblivious_aes.rs` and `otp run minimac_aes` do.
//!
//! The AES key is XOR-split between the parties. Each party enters its
//! 16-byte share (every share in every slot of `m` values per key byte)
//! and party 0 its plaintexts with the first opening of
//! [`crate::minimac_aes`] (no round of their own); the protocol adds the
//! entered shares (GF(2^8) addition is XOR, so the sum is the key), and
//! party 0 alone gets the ciphertexts. The flow, and every check that
//! aborts, is the `.otp` file's; this module only takes the dealt material out of the
//! party's [`PrepStore`] and lays the bytes out (block `g·k + s` in slot
//! `s` of group `g`; byte position `p` of group `g` is value `p·m + g`).
//!
//! **Material per run of `B` blocks** (`m = ⌈B / k⌉` groups,
//! [`run_counts`]): `16 + 32·m` input masks per party (16 for every
//! party's key share, entered once per run, 32 per group of party 0's for
//! the plaintexts and the masked ciphertexts) and `160·m + 40` S-box masks
//! (ten layers of 16 per group for the state and 4 for the key schedule,
//! which is computed once per run and added to every group).

use crate::minimac_aes;
use ot_runtime::minimac::aes::{layer_sboxes, AesMasks, SboxLayer, UsedLayers, LAYERS, SBOXES};
use ot_runtime::minimac::floor::{check_code, CodeTooSmall, STAT_SEC};
use ot_runtime::minimac::prep::{Counts, PrepError, PrepParams, PrepStore};
use ot_runtime::minimac::Shares;
use ot_runtime::primitives::rng::Rng;
use ot_runtime::transport::mesh::Mesh;
use sha2::{Digest, Sha256};

/// Input masks the dealer gives each party per group of `k` blocks
/// (a run of `g` groups uses `16 + 32·g`, [`run_counts`]).
pub const INPUTS_PER_GROUP: usize = 48;
/// S-box masks the dealer gives per group of `k` blocks (a run of `g`
/// groups uses `160·g + 40`, [`run_counts`]). Dealing this much per group
/// lets any split of the files' groups into runs fit.
pub const SBOXES_PER_GROUP: usize = LAYERS * SBOXES;

/// Groups of `k` blocks that hold `blocks` blocks.
pub fn groups(blocks: usize, k: usize) -> usize {
    blocks.div_ceil(k.max(1))
}

/// The material the dealer gives for `groups` groups (enough for any
/// runs whose groups add up to `groups`; saturating: an absurd count asks
/// for more than any store holds or any dealer can allocate, a typed
/// error there).
pub fn counts(groups: usize) -> Counts {
    Counts {
        inputs: INPUTS_PER_GROUP.saturating_mul(groups),
        sboxes: SBOXES_PER_GROUP.saturating_mul(groups),
        ..Counts::default()
    }
}

/// The material one run of `groups` groups takes from each party's
/// store: 16 key masks (the key is entered and expanded once per run) and
/// `32·groups` of party 0's input masks; per layer `16·groups + 4` S-box
/// masks.
pub fn run_counts(groups: usize) -> Counts {
    Counts {
        inputs: 32usize.saturating_mul(groups).saturating_add(16),
        sboxes: LAYERS.saturating_mul(layer_sboxes(groups)),
        ..Counts::default()
    }
}

/// The largest number of groups one run can take from `left` (what a
/// store has left), by [`run_counts`].
pub fn room(left: Counts) -> usize {
    let by_inputs = left.inputs.saturating_sub(16) / 32;
    let by_sboxes = (left.sboxes / LAYERS).saturating_sub(4) / 16;
    by_inputs.min(by_sboxes)
}

/// Lets the run's buffers come from the heap: glibc's allocator maps
/// every allocation above its threshold (initially 128 KiB) afresh, and
/// a run allocates and frees a dozen buffers of a layer's size (about
/// 200 KB at 4096 blocks) per layer, each then faulted in and zeroed page
/// by page by the kernel (about a fifth of a 4096-block run's CPU time in
/// a profile). Freeing one mapped 31 MiB buffer raises that threshold to
/// its size (glibc's dynamic threshold, capped at 32 MiB); the buffer is
/// never touched, so this costs two system calls. Harmless with other
/// allocators.
fn warm_allocator() {
    drop(std::hint::black_box(vec![0u8; 31 << 20]));
}

/// One party's material for one run, taken out of its store
/// ([`Material::take`]: never handed out again).
pub struct Material {
    params: PrepParams,
    groups: usize,
    /// Shares of every party's key-input masks and this party's own slots.
    key_masks: (Shares, Vec<u8>),
    /// Shares of party 0's plaintext and ciphertext masks (and this
    /// party's own slots: used at party 0 only).
    io_masks: (Shares, Vec<u8>),
    sbox_masks: AesMasks,
}

impl Material {
    /// Takes the material of a run of `groups` groups from `store`
    /// ([`counts`]); every party must take the same amounts, in the same
    /// order, from files of the same batch.
    pub fn take(store: &mut PrepStore, groups: usize) -> Result<Material, PrepError> {
        warm_allocator();
        let key_masks = store.take_inputs(16)?;
        let io_masks = store.take_inputs(32usize.saturating_mul(groups))?;
        let sbox_masks = (0..LAYERS)
            .map(|_| store.take_sbox_masks(layer_sboxes(groups)))
            .collect::<Result<_, _>>()?;
        Ok(Material {
            params: store.params(),
            groups,
            key_masks,
            io_masks,
            sbox_masks,
        })
    }

    /// Groups of `k` blocks this material covers.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// Blocks this material covers (`groups · k`).
    pub fn blocks(&self) -> usize {
        self.groups.saturating_mul(self.params.k)
    }
}

/// Why an oblivious encryption failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The AES evaluation (`minimac_aes`) failed or aborted.
    Aes(minimac_aes::Error),
    /// Party 0 gave more plaintexts than the material covers.
    TooManyBlocks {
        /// Plaintexts given.
        given: usize,
        /// Blocks the material covers.
        room: usize,
    },
    /// The entered key shares or the taken masks do not have the
    /// expected layout.
    Layout,
    /// The material's code is below the code-size floor (a forged opening
    /// would pass with probability above `2^-40`;
    /// [`ot_runtime::minimac::floor`]).
    CodeTooSmall(CodeTooSmall),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Aes(e) => write!(f, "{e}"),
            Error::TooManyBlocks { given, room } => write!(
                f,
                "{given} plaintexts, but the material covers {room} blocks"
            ),
            Error::Layout => write!(f, "the key shares or masks have the wrong layout"),
            Error::CodeTooSmall(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Aes(e) => Some(e),
            Error::CodeTooSmall(e) => Some(e),
            _ => None,
        }
    }
}

/// The session id of the AES run, derived from `session` with a domain
/// label.
fn aes_session(session: [u8; 16]) -> [u8; 16] {
    let label = b"aes";
    let mut h = Sha256::new();
    h.update(b"ot/oblivious-aes/session/v1");
    h.update((label.len() as u64).to_le_bytes());
    h.update(label);
    h.update(session);
    let mut s = [0u8; 16];
    s.copy_from_slice(&h.finalize()[..16]);
    s
}

/// One oblivious encryption on `mesh` with this party's `material` and
/// XOR share `key_share` of the key: party 0 gives its plaintexts `pts`
/// (at most [`Material::blocks`]; the rest of the last group is zero) and
/// gets their ciphertexts, every other party passes `&[]` and gets `None`.
/// `session` must be fresh and the same at every party. The material is
/// consumed (its shares and one-time tables wipe themselves when dropped,
/// before this returns).
pub fn encrypt<M: Mesh + ?Sized>(
    mesh: &mut M,
    material: Material,
    key_share: &[u8; 16],
    pts: &[[u8; 16]],
    session: [u8; 16],
) -> Result<Option<Vec<[u8; 16]>>, Error> {
    encrypt_handing_back(mesh, material, key_share, pts, session).map(|(ct, _used)| ct)
}

/// The S-box masks a run used, handed back by [`encrypt_handing_back`]
/// (each layer wipes its tables when dropped).
pub type UsedTables = Vec<SboxLayer>;

/// What [`encrypt_handing_back`] returns: the ciphertexts (party 0 only)
/// and the used S-box masks.
pub type Encrypted = (Option<Vec<[u8; 16]>>, UsedTables);

/// [`encrypt`], but the S-box masks the run used (its one-time tables,
/// about 250 KB per block and party) are handed back instead of dropped
/// inside the run: they are wiped and freed when the caller drops them,
/// e.g. after it has stopped a clock meant to time the protocol (wiping
/// and freeing them takes about as long as the rest of a large run). On
/// an error they are dropped (wiped) here.
pub fn encrypt_handing_back<M: Mesh + ?Sized>(
    mesh: &mut M,
    material: Material,
    key_share: &[u8; 16],
    pts: &[[u8; 16]],
    session: [u8; 16],
) -> Result<Encrypted, Error> {
    let (me, n) = (mesh.me(), mesh.parties());
    let Material {
        params,
        groups: m,
        key_masks: (masks_in, own_key),
        io_masks: (io, own),
        mut sbox_masks,
    } = material;
    let used = UsedLayers::new();
    sbox_masks.hand_back_to(used.clone());
    let (k, code_n) = (params.k, params.n);
    check_code(k, code_n, STAT_SEC).map_err(Error::CodeTooSmall)?;
    let room = m.saturating_mul(k);
    if pts.len() > room {
        return Err(Error::TooManyBlocks {
            given: pts.len(),
            room,
        });
    }
    // Value p: key byte p in every slot.
    let mut key = vec![0u8; 16 * k];
    for (p, v) in key.chunks_mut(k).enumerate() {
        v.fill(key_share[p]);
    }
    // Byte p of block g·k + s in slot s of value p·m + g (zero at the
    // other parties: only party 0 enters plaintexts).
    let mut pt = vec![0u8; 16 * m * k];
    for (b, blk) in pts.iter().enumerate() {
        for (p, &byte) in blk.iter().enumerate() {
            pt[p * m * k + b] = byte;
        }
    }
    let p = minimac_aes::Params::new(n, m, k, code_n, STAT_SEC).map_err(Error::Aes)?;
    let input = minimac_aes::PInput {
        key,
        kown: own_key,
        pt,
        own,
        kin: masks_in,
        // Party 0's masks are the first 32·m of every party's.
        io: io.slice(0, 32 * m).ok_or(Error::Layout)?,
        masks: sbox_masks,
    };
    let ct = minimac_aes::P::new(me, p, aes_session(session), input, Rng::from_entropy())
        .and_then(|p| p.run(mesh))
        .map_err(Error::Aes)?
        .ct;
    let ct = ct.map(|ct| {
        ct.iter()
            .take(pts.len())
            .map(|c| std::array::from_fn(|i| c.get(i).copied().unwrap_or(0)))
            .collect()
    });
    Ok((ct, used.take()))
}
