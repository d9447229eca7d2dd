//! The big-integer backends of Paillier (`ot_runtime::primitives::bignum`) against
//! known answers and against each other.
//!
//! * Known answers at Paillier sizes (a 4096-bit modulus, the size of `n²`
//!   for 2048-bit keys, with 2048- and 253-bit exponents), computed with
//!   an independent implementation (Python's built-in integers: `pow`,
//!   `pow(x, -1, n)`, `math.gcd`, `math.isqrt`, a Jacobi symbol by
//!   quadratic reciprocity) from inputs derived from SHA-256 of fixed
//!   labels; known primes (Mersenne primes) and composites (a Carmichael
//!   number, the strong pseudoprime to base 2 3215031751, a product of two
//!   primes) and the primes following 2^64 and 2^128.
//! * Property tests of the default backend: the Montgomery exponentiation
//!   against square-and-multiply over the plain arithmetic, the secret and
//!   public powers against each other, inverses, Jacobi symbols against
//!   Euler's criterion.
//! * With the `gmp` feature: both backends on the same random inputs,
//!   operation by operation.

use ot_runtime::primitives::bignum::pure::{Integer, IsPrime, Order};
use proptest::prelude::*;

/// A non-negative integer from hexadecimal digits.
fn hex(s: &str) -> Integer {
    let s = if s.len() % 2 == 1 {
        format!("0{s}")
    } else {
        s.to_string()
    };
    let bytes: Vec<u8> = (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex digit"))
        .collect();
    Integer::from_digits(&bytes, Order::Msf)
}

const M: &str = "d2ee1a56ff06ef217cca3e5d151cd60a6bca7d80b4b813ded3ebbdee13238a309ec8cfcacf37d4762588caf67109c595fc51faf6ed68fc7efa6f869477d4d2da94d2501e2d1737bffaa10bc735686b73cde5a5a65cddb79e1da340a5d3e7d32428f5693cbfc5be115238a590f8ae7dd737db973231200d001a7576110a807be721a4750faa27ffe39b6379b824555fa3a2c6c662b8eddfc8d78893ca51e59b7b5e333c71c569bc68fc528cd057fa49d426646d632c0fb5247713afd3a9bf18f683e4309d82055ac60b82f06dc769b53fcb417af122e7eb3f8824526f943a3b7881543c8eb128a6b3575717b3f77434ad38b045d3cadaa705cde05b89dc903cbb6e5bd943f405aa78adec3cd59d17173b6fda9560a44b5d62814a29c7cfcfa08b13d4b1915647139cab05758ba9279b892f4d88651fbba2a454e293e3bae778181a15c870730e39b26ad77cbbff95e6854f67fd6d54aee433ec121dd266c2d3b46cd2ad02f8c5422312ce6071b554af03123ff38d109a7ea31b39ac6f249b687dcfc1519428a720a480c300207f3fee637eec341c817d26e23ae83be838c199752557eea8ca7070ba361fd4aa4e8bf6105c498e3e41b3afbd0d3e5675ec9b2edf36130541f0b4b29206a4bd6dfb3d63cc7ddbc3cab3446ca6c9fbb606560d73e90b51c9a8424f44ab88d930f911ea26d84d0999b1f7812ebe6c3cdd7816855369";
const B: &str = "b3050ffa4448101d68188faf41ceadae4f0c600886566c96281e796543c1038c66749c71d41ec6fc7a8d3063304968fb123f5dc1e93595c949132ebe0f197abfe7cc9d17c56e7238d66d81375458fbf3cc116dfd71b1994aa97e43babc6af03b34ba673ddb76a0cce62ab88ff47c9f6da782b29c34c897d6b030a73feef2fe74f06e0251be9a260498145708c760f807de934f26f98ac5004150af3dd0efdaf1b0151bc2ee37a12e41af00af9f3c93a261044b123a27d56c5ef2f488231415534d19d6aadaeaaa1ace80cc9c2e6af82910a1f89bcc46c69bc461ef822728fda1bf0d69ea54de641d0dae4c3f056122b6647f718bbd10a85a2587e83b6f9e8511e49a9d4c5ceb60b21e7d6216babd1972ac42b8cb71f9a2609b9ab5da73ca6f5e47a3fb26f9e8027abdce91173261948aa1198374966be0f61e2aec1de18f0f242bdadd7ed4843860f020fa22b340e4c691afa17cf721539cef335d41dec81b7effd0ea6cfdd16048c717a45cb2f8151db632fa9f0a6c3cff6fcb29669d5405c84de39fee647d5676b28bbbe07a4d2f454c16070e2fb13be2ae133ae4ad1351f560b278107d0cd7f87df81d89c1eee74788eeae8898176d85640f3edde38009f50e613a1da097e38f0357a2205855946366d629f847dfbc6fc5a7a15d3bd37f7c8b9ef2da4a24508b5d544a0a13f00c7d709cbc13";
const E: &str = "f43c40afae50a60b4379c23f65b9174765a75300a0047c41fbfeca261e08a4fe7591fa4c2a0b0fceff7833724b20fbd27f167a527e5f255c6344d093d85dfdde9ef1a45985446af255cba3f792b7e605802734c4b6ae597301fa6a4f7f449e67ac45a3532fdafb18cb78dd5393c7fda0044123508f8fd91805644154ab47509c2d13eaa23b6f8ceedc959ecfe661b29eda25611b8ce66e3dfc32424d834fcabd908081e46a5990349876f855ba878f1fe2ab1b23e209a708c9466aa3f5770c75ef6a4558a886df212fa7b41a1791252d6e03c05ff2d09da9e1b805c8da1091d19698054577e07451735983090499d044dcb112f2fcde319cc5f3fdad2019e4ce";
const E2: &str = "1c03026719a69a36b5f07c4816d554e84e3adb501d05ce6aaaf95e6e87f82451";
const N: &str = "cdc1da48fd610547d186d33e4b3b643aec5c697cbab095a8d803c451b3bd92fce4ccf9235011b14a6ca70bd36281106a69585edb6e1737eccf232f050ff5298c7bf009eaa3f23ec6f0a08892c53f06b21290bcc60185691d61dd580c376a8cd778f377ceb7c355f7f26ee9778f3da1d8df27af5323758d19784e92b5b7d9b33f3a3c5c78b43d68cb79b455721202b3fa9cd60dbb2ed184d3031d2f595c00f724245f1e901011911c9998bfb160cc5b1843b6c992e3afd5553c0f3977a2f592d93ca6a1b8f241aff2456e7bf71ac643d0aab44f6359f2e9ff88ebcd191dff698e810490544f959ff078b5a2e5bc12aa0b773ebb53bed2e9482241d9aa0946d54b";
const X: &str = "84e622c795ad08e5b98791faa34fa5e0000f29855a084bdf35332a5a74cdf9706e342990302ac2ec966dd77641a566694ae4b00a088732ffbc1142ff91ebaff78efd4bbf2209463d0d79a31023226bcd0f3fd2edb1085ac6f9bdc8ea71b9f1aaaf25fadb65a42c14a413ed943b9a3e4265f6a83aa9d27871dad7e5c3a15f21a14482a16f8afdc6279f04d5dd349da30b503d3ee68d2596c50e499a704cc8623c65fd5aa3eeb757684c8bd9e703dc32c52bae0bdba21c799006cb5c33a274942e939a6cc1865e4fdee475e0ccbb86ab66ba1889f388fe49b9f0a7e19cc2ee96586f4b1e162c18635d52ca6dbc65c050a5efcae42c5e5425b6602fdfe6c6fda8";
const POW_FULL: &str = "9cbefc05d6f004d018a9d5f0e537b0979947631dff75a235ff295b8bdb70976c9a0b67aac9cdb93ee308083bdc933ebcd73f214330a0a127d28d8c6a537ab33dfab632c2569f72b64381135ad41fa848becfcbe60bf85bd775e65fad09af452a5bf38e2621698fab01e6e5854d564ee3cc6ae3c558b1625bb890da97effea67daf0d1b60d67d2eb849e4c32ce0238667679881e0dca4e83823dc1e0ae6326b25b3bbfe9957c6db1b1fbb38dafd855b624e744f9237d14bf14853532145597358383047f39db78dfc205fc906ff0cbb203d80bc04f654cc287dd9da2cfdf74fdbdd3f579c897e2e5917019fa3bde9ebe1502d194863df424e2f1c1f413a5699ab01a51a44cdab744116e720aead5e72e3dc69003c2576750e55574e060866f0618810fedafb53cc4bf05fcc94e120935654b7889baa7542049d8140cf907503a36251c342f1ba1fb820909aab5203455769315910ddf8aaaf460b1b5325bf7f85a0039ebc0b4fbd7081f071861b3e30e2bac7e1befcbd3545d4a650f9cdf8a0e3f21d2d422437cf93e527ae77d2d733282c89652b48187732c7f45d1320c79ca2d1d7cd5fc7da6e0e3d47647a325e80c400e35a3adf99a3422a3f07bc32ff7b26872d7868ee8b5a27c22bd7d49148b70ac55a18e4da768c6616529befd08a3099f159e689c2ff40cc2fa6189242beda25a0e7ae3d178f7bbdf73e8f7596ed84b8";
const POW_SHORT: &str = "ccaedcc624d2448f9556f6d3ce7a32da77b7ab5338640fea7778623f0c4c8440d0a5f8ac6fd063f7c640196c83c484ce7ab51625a7832ec00a242c4af8ea447c938b8dfd22eb0ffa890313e51dd7bd9d7a84be69280258489d47bc8ca222a929ed5565ac84a39a3356913bd145849ed63c19671d6f3abdba7eabd4323776c2ad6fc4642c01b1826337fc76e3735df888bdab1c7f4fdeb53200cfe735beac4068e59ebfa4aac3ecc866a654dcd068bb81eddd0a90a387b61d8ff8af9d0709a30c0189b996d87b89761e4e6442818dd2a3b0f03cf1d21fe419d07229980c557339400a0ba463494a29404ae459b78f9e1d611dd48c3f2bcc49e1dbc6d94c07823eac0d4ad5cb5183480009455e6def607c072dabc997352c793bd258c9366889742628465f217dd868869f32945621e2a9a1b791dab56c408d3b9256ccb570a6f0ebad4e6bd8525127667ac1bba966d80797d8596b42b7041ed2dd2355d376408f058f01262d473c8ca6030f420f957c52a58907beea14218f98a69a8b0eb4d3d757c191eb8b48c903b11cddc8462741a8c07073a81c06ce1bcd81939ba3fc1399357c0d53db841fcc95a70ce7fc9d069a5477dccda948a525dc48d7bbc6a1b5ed8f914e54699235c61ba5d444ea63d41ab5fae97cf7872b33023c399dda754b73e09807bb24e315c2ff5d8317d1ba9e27990223d4ee0bbd168a7ec68b0ec6e8cc";
const POW_NEG_BASE: &str = "63f3d90da34aa91e773478946a2a32ff412d22d7c5403f45c735baf06d705efce22d71e5f67707e5f48b189ed4540c7819ce4d145e5cdbef04b5a497eea8e5e0146c2210a2c27c5719df7e21790add65360e73d34db5f55805b841931c529fa3ba003903b2223ddfba769bfb329df00fbc23014c1e54f459bc9a1ded309b939b1e010e3a8767d80636702d4b0f7671ae51ba9e3690f2a96d6b8ac9493395b1278947ccd1aa5cfa095ac37f387918e52388762d28887ff06e71b0036a2b575ea825a7706a989d14fed348c2b45dbe29c1a513dff50c80725b7b228d787e4c83f414a30ea4ddf5c8a170c335a3fe4968fd79271478baedabbec0494b09088ba7cc24e8e6e28b42730ade2f7772f27b6bf68ace9970d1630e94577d0fe99671716edac6b3234c93b34246642f75305b8df8d95f68a6a4f621719503d170576d1272e687a049abbe88b045cbb00562f0e7db78fa40211f7e0151934fa7c934c93256743abdccb7e05966ccb512fa5bf32b06cb6ebce26865d13829311e415e694a677ffbfa89d5e57a0cfa622583918acbabe7bc074657658c66d66a84c94c585dbefdbe154eeec50eda078c7c251eeef7607d1b170986b0a9730f57eba25f978f1a681b6ed87227ccbeafee92910d98fb1c7e0da4dbbbd4173c7bf7c687b9828752ab9c1ed1d6c2ee8897bade1402f88b0b40775dd097571a7e1be16ed07be6a9d";
const POW_NEG_EXP: &str = "c73d1745e736260616be0d7877794479f00153dbdc4c85ab84e14409a25dee8666051884952d2856ad9fd360a7ffb39c98773f8867a7dd4433b3c5039b0fda0705426ccfc25eaa51c0de78cdeb5cdfae8fec9996cc50b2b7526d3ff72c83a08a7e22d9c38814b16d891a8cc91a7a3fae845301f3b03a55a809af994b6b07206fd7f17bcf18858b89ea9dcf6debdc971413813eff9210f4ee061c29bc6ef21bd764a0cd5ab19804a171974467f67894eba45cba8bb2aa298d41f2d46504f6eabb356c4fc512a1bf937cb547e2f82568400f63d8c9538946058cce79795fc09667991a3377f181acf0a733303eee9ffa22031f8fb2ac1f317caf1c09515da1d92a";
const INV_X: &str = "aed79151dd2ff5edec5e1135886be6827fa68dd7dbe0c665fbefcc94ee054c75ee6edbbbd3e9d868325c85a005d32c264cc55c244f12aeb1cc2763dd0e0064edd221306b37d4db1d883f72e837c65406e7d8670577617f8e7cfc1323ad5aef4b875bdea035161bb7702aba9eb752692eef4ac6ca9aa05429f722e0df59b99da645e4436fd7a5d90c73d664c14f9c9140d8850bf9ab4315cd5983a65f32cb318474335e5d396805ab998d7d21e7dad38b9376115f0cb0faa1db7cef94fb2f5985ddf3bfc5ca1055f433f055ad21119e0db87df5537b3ccad7a853eb526d4c30aa68a7cdbb547bc088c2d8066d786a0ade78b0a808aa992a565953ef9fec16df04";
const GCD: &str = "6cf";
const SQRT_B: &str = "d613c5a713aa36c0fc2b0c0676dd60131b118bd9738dc863e119c87ad976b2466b6c24557608c15d3973a4758f4a4acabd5a120593f34cf4247c31f99358111d6824e7889cf67fde4de6eadf7aaefca7292c6619f0b254671d034f4f5b01e57b0fdaec6055de6f3fc52084f8277a0e528e951e4cf8046d27fb11d12ae1c34f94a9ca62f287adf3921c42ddf1c9d93ce0c9b3da7ed27a75b66f1b92b25c13d05e32acbb332fc2fcc4bf805c4af8b1001ec18f5a6071c1110c4f71ed05d85716c72397f037330c727a03f849c7a276bea7547f4e39d26cba41d22b1da5d1fffc8d3ff0bea0d78ea331bb35b47247bf095efc385107b8c342081565";
const PROD_MOD: &str = "35955139e9f81f720677ed325e0ecb80df0a571efdce5e07b5fe56d092ab37ad192a4595439bd21297be2915697232b5546775524cda994d2ccfe23f989f4eaef0438a3b4f465a9326fbd39c14d420199d09a89ccfa01fe67c6a068e4b34bef2a45b5916041fafcad961db5ce438ef5c0508ff7b0face11b5f72759c8a3b0c7c00a0519d613baba0d2d8076104012ab9534b4a8475a38bf4f0322633c15293370c6e6ed58927048592cd6c0f919bba59762ffe7f242534d9e004de35b40cf5426886da99bf0d8d43667a7839d8147033ae85733f023ccb30e1c3c4e7e2cbaffe70283872908be49d1ef295f425f90b3aa152db27c07f42e6a224c8adf082386da0c59111ac72f2fb00fb867e4e5cccd7a728175b9c5ec80a74dfe90c64ee5668af2845633ea886a1e7b26214af6b5af4f4011099d9c0e2a3650c59c66a65c703bc3dd94f9d39afe627df77d4bbf9aeba5972a623a8c11268b558ecf7454e3be97aabb0fb8d77513eb4c26c3d0b75efed9d5cc59ac76ac9034498b6dff8c32debe6ae90fd65047c6406cc8198d6571ba28782c9c44c52fd5eecdb15e4bf87245723c86c4f10ddaefd9bfb047d0ca8aa4faab48dd0d890af65150bdda9d353592c47b0ec79d9e2940fe2659496fa26a0a5340adaa3cddb9127325b92a1a32581a4e1e6edf9c0855067526ea68c5ac5cf37e4168b6bf1371e94d93f5f26cbfbed3e";
const QUOT: &str = "158d76418fb22a1cb5f6bceffcba450689b328328e11120b0400eb7c555e23f2f515afbc36ea2a938c5556ec8b8c7ee7434d435c53c8391160fb35e0192a0965af153fe812ce520f5388e36d128e4f82d5eef1e54fb7878e2788137d6fe55166d6e0c02dca0e20fec56571be13f7b121b6915d7b367d4164ec421e32d69880d5754c052b15d16295c30bf39a0ada8bf1d5bb9a86aec9fd80585746d33d3a0e4bd4cf6652ae59589e18d7b25387b3676fac0cedb78b01d57118bf45c53850e2be5a03f6256ae4c1b6d561d7a171e5d9bbb38d37b14eba3095c0a04c9c34ac7657f9b39a612a726b4b09695fd08485f52b005fcfa5ed9";
const REM: &str = "345671d5b67915a0c2efd685f9c2e857abe9241954e0347afd8b56b94114b11d541a3821467f3dee63052c19a73c63df1d1655b1c093993b067251453ffadc2b899409f66ba906f749a8962bffa52f1773d3847811e1314c700073357c8ae2f5de1df520a71cacc91ad3e1c8998b030b72ae15be0b2f95060d5723e9642ad8b87027ab4610d8954e185e423d320e9c1769da9b37dadd3dee1e21dcd45cbda8e99e4f01fa02216d9bd9308e9c624d8860a820e34ced410a88b20552451f92fbd34df97059b6ed560d731f5993513816f8051a663b13f4ab3607f36e25a952c79d39d91163c6e96b04fc985caecf0a05ed2c34471e0b1ae51ae98ca8aabc08ab";
const JACOBI_X_N: i32 = -1;
const JACOBI_B_N: i32 = 1;
const JACOBI_X2_N: i32 = 1;

#[test]
fn known_answers_at_paillier_sizes() {
    let (m, b, e, e2, n, x) = (hex(M), hex(B), hex(E), hex(E2), hex(N), hex(X));
    assert_eq!(m.significant_bits(), 4096);
    assert_eq!(
        b.clone().pow_mod(&e, &m).expect("odd modulus"),
        hex(POW_FULL)
    );
    assert_eq!(b.clone().secure_pow_mod(&e, &m), hex(POW_FULL));
    assert_eq!(
        b.clone().pow_mod(&e2, &m).expect("odd modulus"),
        hex(POW_SHORT)
    );
    assert_eq!(b.clone().secure_pow_mod(&e2, &m), hex(POW_SHORT));
    assert_eq!((-&b).secure_pow_mod(&e2, &m), hex(POW_NEG_BASE));
    assert_eq!(
        x.clone().pow_mod(&(-&e2), &n).expect("invertible"),
        hex(POW_NEG_EXP)
    );
    assert_eq!(x.clone().invert(&n).expect("invertible"), hex(INV_X));
    let three_five_seven = &b * 105u32;
    assert_eq!(three_five_seven.gcd(&(&m * 21u32)), hex(GCD));
    assert_eq!(x.jacobi(&n), JACOBI_X_N);
    assert_eq!(b.jacobi(&n), JACOBI_B_N);
    assert_eq!((&x * &x).jacobi(&n), JACOBI_X2_N);
    assert_eq!(b.clone().sqrt(), hex(SQRT_B));
    assert_eq!((&b * &x) % &m, hex(PROD_MOD));
    assert_eq!((&b / &x), hex(QUOT));
    assert_eq!((&b % &x), hex(REM));
    // Digits round-trip in both orders and both digit sizes.
    let mut limbs = vec![0u64; m.significant_digits::<u64>()];
    m.write_digits(&mut limbs, Order::Lsf);
    assert_eq!(Integer::from_digits(&limbs, Order::Lsf), m);
    let mut bytes = vec![0u8; 600];
    m.write_digits(&mut bytes, Order::Msf);
    assert_eq!(Integer::from_digits(&bytes, Order::Msf), m);
}

#[test]
fn known_primes_and_composites() {
    let one = Integer::from(1);
    for p in [521u32, 607, 1279, 2203] {
        let mersenne = (&one << p) - 1u32;
        assert_eq!(
            mersenne.is_probably_prime(30),
            IsPrime::Probably,
            "2^{p} - 1"
        );
    }
    let composites = [
        Integer::from(561u32),
        Integer::from(3_215_031_751u64),
        ((&one << 521u32) - 1u32) * ((&one << 607u32) - 1u32),
        (&one << 2203u32) + 1u32,
        Integer::from(1),
        Integer::from(0),
        Integer::from(-7),
    ];
    for c in &composites {
        assert_eq!(c.is_probably_prime(30), IsPrime::No, "{c}");
    }
    assert_eq!((&one << 64u32).next_prime(), (&one << 64u32) + 13u32);
    assert_eq!((&one << 128u32).next_prime(), (&one << 128u32) + 51u32);
    assert_eq!(Integer::from(1).next_prime(), 2);
    assert_eq!(Integer::from(2).next_prime(), 3);
    assert_eq!(Integer::from(996).next_prime(), 997);
}

#[test]
fn refusals_are_values_not_panics() {
    let a = Integer::from(12345);
    assert!(a
        .clone()
        .pow_mod(&Integer::from(3), &Integer::new())
        .is_err());
    assert!(a.clone().invert(&Integer::new()).is_err());
    assert!(Integer::from(6).invert(&Integer::from(9)).is_err());
    assert!(Integer::from(6)
        .pow_mod(&Integer::from(-1), &Integer::from(9))
        .is_err());
    assert_eq!(Integer::from(-4).sqrt(), 0);
    assert_eq!(a.jacobi(&Integer::from(10)), 0);
    assert_eq!(a.mod_u(0), 0);
    // An even modulus falls back to the plain exponentiation.
    assert_eq!(
        Integer::from(3)
            .pow_mod(&Integer::from(5), &Integer::from(16))
            .unwrap(),
        243 % 16
    );
}

/// A non-negative integer from random bytes (little-endian).
fn int(bytes: &[u8]) -> Integer {
    Integer::from_digits(bytes, Order::Lsf)
}

/// `b^e mod m` by left-to-right square-and-multiply over the plain
/// arithmetic (multiplication and remainder, no Montgomery form).
fn reference_pow(b: &Integer, e: &Integer, m: &Integer) -> Integer {
    let mut acc = Integer::from(1) % m;
    let base = b % m;
    for i in (0..e.significant_bits()).rev() {
        acc = (&acc * &acc) % m;
        if e.get_bit(i) {
            acc = (&acc * &base) % m;
        }
    }
    acc
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn montgomery_powers_match_square_and_multiply(
        b in proptest::collection::vec(any::<u8>(), 0..80),
        e in proptest::collection::vec(any::<u8>(), 0..40),
        m in proptest::collection::vec(any::<u8>(), 1..80),
    ) {
        let (b, e) = (int(&b), int(&e));
        let m = int(&m) * 2u32 + 3u32;
        let want = reference_pow(&b, &e, &m);
        prop_assert_eq!(b.clone().pow_mod(&e, &m).unwrap(), want.clone());
        prop_assert_eq!(b.clone().secure_pow_mod(&e, &m), want.clone());
        prop_assert_eq!((-&b).pow_mod(&e, &m).unwrap(), reference_pow(&(&m - (&b % &m)), &e, &m));
        if let Ok(inv) = b.clone().invert(&m) {
            prop_assert_eq!((&inv * &b) % &m, 1u32);
            prop_assert_eq!(b.clone().pow_mod(&(-&e), &m).unwrap(), reference_pow(&inv, &e, &m));
        } else {
            prop_assert!(b.clone().gcd(&m) != 1u32);
        }
    }

    #[test]
    fn jacobi_matches_eulers_criterion(a in any::<u64>(), k in 0usize..8) {
        let primes = [1_000_003u64, 998_244_353, 1_000_000_007, 2_147_483_647, 4_294_967_291, 18_446_744_073_709_551_557, 65_537, 7];
        let p = Integer::from(primes[k]);
        let a = Integer::from(a);
        let euler = a.clone().pow_mod(&((&p - 1u32) >> 1u32), &p).unwrap();
        let want = if euler == 0u32 { 0 } else if euler == 1u32 { 1 } else { -1 };
        prop_assert_eq!(a.jacobi(&p), want);
    }

    #[test]
    fn bits_and_digits_agree(v in proptest::collection::vec(any::<u8>(), 0..64), at in 0u32..600) {
        let x = int(&v);
        let ones = (0..x.significant_bits()).filter(|&i| x.get_bit(i)).count() as u32;
        prop_assert_eq!(x.count_ones(), Some(ones));
        let first = (at..x.significant_bits()).find(|&i| x.get_bit(i));
        prop_assert_eq!(x.find_one(at), first);
        prop_assert_eq!(x.clone().keep_bits(at), &x % (Integer::from(1) << at));
        let mut back = vec![0u8; x.significant_digits::<u8>()];
        x.write_digits(&mut back, Order::Lsf);
        prop_assert_eq!(int(&back), x);
    }
}

/// Both backends on the same inputs (feature `gmp`).
#[cfg(feature = "gmp")]
mod against_gmp {
    use super::int;
    use ot_runtime::primitives::bignum::gmp::Integer as Gmp;
    use ot_runtime::primitives::bignum::gmp::Order as GmpOrder;
    use ot_runtime::primitives::bignum::pure::Integer;
    use proptest::prelude::*;

    fn gmp(bytes: &[u8]) -> Gmp {
        Gmp::from_digits(bytes, GmpOrder::Lsf)
    }

    /// The same value on both sides (compared through decimal text).
    fn same(a: &Integer, b: &Gmp) -> bool {
        a.to_string() == b.to_string()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_operation_agrees(
            a in proptest::collection::vec(any::<u8>(), 0..300),
            b in proptest::collection::vec(any::<u8>(), 1..300),
            e in proptest::collection::vec(any::<u8>(), 0..64),
            negate in any::<bool>(),
            s in 0u32..200,
        ) {
            let (pa, pb, pe) = (int(&a), int(&b) + 1u32, int(&e));
            let (ga, gb, ge) = (gmp(&a), gmp(&b) + 1u32, gmp(&e));
            let (pa, ga) = if negate { (-pa, -ga) } else { (pa, ga) };
            prop_assert!(same(&(&pa + &pb), &Gmp::from(&ga + &gb)));
            prop_assert!(same(&(&pa - &pb), &Gmp::from(&ga - &gb)));
            prop_assert!(same(&(&pa * &pb), &Gmp::from(&ga * &gb)));
            prop_assert!(same(&(&pa / &pb), &Gmp::from(&ga / &gb)));
            prop_assert!(same(&(&pa % &pb), &Gmp::from(&ga % &gb)));
            prop_assert!(same(&(&pa >> s), &Gmp::from(&ga >> s)));
            prop_assert!(same(&(&pa << s), &Gmp::from(&ga << s)));
            prop_assert!(same(&pa.clone().keep_bits(s), &ga.clone().keep_bits(s)));
            prop_assert_eq!(pa.significant_bits(), ga.significant_bits());
            prop_assert_eq!(pa.count_ones(), ga.count_ones());
            prop_assert_eq!(pa.find_one(s), ga.find_one(s));
            prop_assert_eq!(pa.mod_u(1_000_003), ga.mod_u(1_000_003));
            prop_assert!(same(&pa.clone().gcd(&pb), &ga.clone().gcd(&gb)));
            let (pm, gm) = ((&pb * 2u32) + 1u32, Gmp::from(&gb * 2u32) + 1u32);
            prop_assert!(same(&pa.clone().pow_mod(&pe, &pm).unwrap(), &ga.clone().pow_mod(&ge, &gm).unwrap()));
            if !pe.is_zero() {
                prop_assert!(same(&pa.clone().secure_pow_mod(&pe, &pm), &ga.clone().secure_pow_mod(&ge, &gm)));
            }
            prop_assert_eq!(pa.clone().invert(&pm).ok().map(|v| v.to_string()), ga.clone().invert(&gm).ok().map(|v| v.to_string()));
            prop_assert_eq!(pa.jacobi(&pm), ga.jacobi(&gm));
            if !negate {
                prop_assert!(same(&pa.clone().sqrt(), &ga.clone().sqrt()));
            }
        }
    }
}
