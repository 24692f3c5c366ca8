//! An error accumulator, so the user sees every mistake of a model in one compile.

#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    /// Adds `other`'s errors after these.
    pub fn append(&mut self, other: Errors) {
        self.errors.extend(other.errors);
    }

    /// All errors as one `syn::Error` (each keeps its own span), or `None`.
    pub fn into_error(self) -> Option<syn::Error> {
        self.errors.into_iter().reduce(|mut all, e| {
            all.combine(e);
            all
        })
    }
}
