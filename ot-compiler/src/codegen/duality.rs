//! The `Party` and `DualOf` impls of the two roles and the static duality
//! guard: the build fails if the two projections ever disagree.

use super::names::rt;
use super::roles::RoleInfo;
use crate::ir::Ir;
use proc_macro2::TokenStream;
use quote::quote;

/// The impls and the guard (nothing unless there are exactly two roles).
pub(super) fn duality_items(ir: &Ir, roles: &[&RoleInfo]) -> TokenStream {
    let rt = rt();
    let pname = &ir.name;
    if roles.len() != 2 {
        return quote!();
    }
    let mut out = vec![];
    for (a, b) in [(0usize, 1usize), (1, 0)] {
        let RoleInfo {
            role,
            first,
            role_mod: rmod,
            transcript: tconst,
            output,
        } = roles[a];
        let (prole, pfirst, prmod) = (&roles[b].role, &roles[b].first, &roles[b].role_mod);
        let rs = ir.roles[a].as_str();
        out.push(quote! {
            impl #rt::transport::session::Party for #role<#rmod::#first> {
                type Output = #output;
                type Error = Error;
                const PROTOCOL: &'static str = #pname;
                const ROLE: &'static str = #rs;
                const TRANSCRIPT: &'static [#rt::transport::session::Step] = #tconst;
                fn run_on(self, ch: &mut dyn #rt::transport::channel::Channel) -> Result<#output, Error> { self.run(ch) }
            }
            impl #rt::transport::session::DualOf<#prole<#prmod::#pfirst>> for #role<#rmod::#first> {}
        });
    }
    let (ta, tb) = (&roles[0].transcript, &roles[1].transcript);
    let msg = format!(
        "duality guard: the projections of `{pname}` onto `{}` and `{}` disagree",
        ir.roles[0], ir.roles[1]
    );
    out.push(quote!(
        const _: () = assert!(#rt::transport::session::dual(#ta, #tb), #msg);
    ));
    quote!(#(#out)*)
}
