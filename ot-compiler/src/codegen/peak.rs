//! `Params::peak_memory` and the budget check of `Params::new`, printed
//! from the plan's memory bound ([`Footprint`]; how it is computed is
//! documented in `plan::footprint`).

use super::names::rt;
use super::wire::checked_bytes;
use crate::plan::footprint::{Footprint, Point};
use proc_macro2::TokenStream;
use quote::quote;

/// The parameters a point's sizes depend on, as text for `Error::TooLarge`.
fn point_params(fp: &Footprint, p: &Point) -> String {
    let mut ps = vec![];
    for &i in p.counts.keys() {
        fp.terms[i].ty.params_into(&mut ps);
    }
    ps.sort();
    ps.dedup();
    ps.iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Params::peak_memory` (the largest bound of any role, and where) and
/// the check `Params::new` makes of it against `__budget`.
pub(super) fn peak_items(fp: &Footprint) -> (TokenStream, TokenStream) {
    let rt = rt();
    let sizes = fp.terms.iter().map(|t| {
        let b = checked_bytes(&t.ty);
        match &t.whole {
            None => b,
            Some(w) => {
                let w = checked_bytes(w);
                quote!((#b).map(|__c| (#w).map_or(__c, |__w| __c.min(__w))))
            }
        }
    });
    let nterms = fp.terms.len();
    let points = fp.points.iter().map(|p| {
        let what = format!("the values `{}` holds at once ({})", p.role, p.at);
        let ps = point_params(fp, p);
        let counts = p.counts.iter().map(|(i, c)| quote!((#i, #c)));
        quote!((#what, #ps, &[#(#counts),*]))
    });
    let method = quote! {
        /// An upper bound of the memory one role holds at once in a run
        /// with these parameters: the largest over the roles and the points
        /// of their runs of the sizes of the values alive there (see
        /// `ot_runtime::transport::limits::Peak`), where it is reached, and the
        /// parameters it depends on; `None` when no size depends on the
        /// parameters. `Params::new` refuses parameters whose bound
        /// overflows or exceeds the memory budget.
        #[allow(clippy::all)]
        pub fn peak_memory(&self) -> ::core::option::Option<#rt::transport::limits::Peak> {
            let params = self;
            let __sizes: [::core::option::Option<usize>; #nterms] = [#(#sizes),*];
            #rt::transport::limits::peak(&__sizes, &[#(#points),*])
        }
    };
    let check = match fp.points.is_empty() {
        true => quote!(),
        false => quote! {
            if let ::core::option::Option::Some(__p) = params.peak_memory() {
                match __p.bytes {
                    Some(__b) if __b <= __budget => {}
                    __b => return Err(Error::TooLarge { value: __p.what, params: __p.params, bytes: __b, limit: __budget }),
                }
            }
        },
    };
    (method, check)
}
