//! Loading rules of `.otp` files through `protocol!`: a file (and an
//! import) saved with a UTF-8 byte-order mark compiles. The errors of the
//! other rules (a file that is not UTF-8, an import cycle) are pinned in
//! `ot-compiler/tests/diagnostics.rs`.

mod bom {
    ot::protocol!("tests/loading/bom.otp");
}

#[test]
fn a_file_with_a_byte_order_mark_compiles() {
    assert_eq!(bom::PROTOCOL, "Bom");
    assert_eq!(bom::ROUNDS, 1);
}
