// A parameter named with a Greek letter, as in the paper: one error saying
// names are ASCII, with a rename hint (not two syntax errors at `κ`).
mod protocol {
    ot::protocol! {
        protocol Sec(role A, role B) {
            param κ: usize requires κ >= 1;
            output B { x: [Block; κ] }
            at A { r = [sample Block for i in 0..κ]; }
            round give: A -> B : Give { r: [Block; κ] }
            at B { x = r; }
        }
    }
}

fn main() {}
