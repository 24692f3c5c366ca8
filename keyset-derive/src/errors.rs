//! An error accumulator, so the user sees every mistake of a model in one compile.
//!
//! Reading the attributes (`attr/`) pushes its errors in the order it meets them. The rules
//! that compare several parts of a model (`check.rs`) run afterwards; each places its error
//! at the [`Mark`] of the part it concerns, the point where reading that part ended, so the
//! errors come out in the order of the source that caused them.

/// A point in the sequence of reading errors: after the first `n` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mark(usize);

impl Mark {
    /// The same point, with `n` more reading errors before it (a part read into its own
    /// [`Errors`] and appended after `n` others).
    pub fn after(self, n: usize) -> Mark {
        Mark(self.0 + n)
    }
}

#[derive(Default)]
pub struct Errors {
    /// The errors of reading the attributes, in order.
    read: Vec<syn::Error>,
    /// The errors of the checks, each at its mark (in the order they were pushed).
    checked: Vec<(Mark, syn::Error)>,
}

impl Errors {
    /// An error of reading the attributes.
    pub fn push(&mut self, e: syn::Error) {
        self.read.push(e);
    }

    /// The point reading has reached.
    pub fn mark(&self) -> Mark {
        Mark(self.read.len())
    }

    /// How many reading errors there are.
    pub fn len(&self) -> usize {
        self.read.len()
    }

    /// An error of a check, reported where reading reached `mark`.
    pub fn push_at(&mut self, mark: Mark, e: syn::Error) {
        self.checked.push((mark, e));
    }

    /// Adds `other`'s errors after these (its marks move by this list's reading errors).
    pub fn append(&mut self, other: Errors) {
        let n = self.read.len();
        self.read.extend(other.read);
        self.checked
            .extend(other.checked.into_iter().map(|(m, e)| (m.after(n), e)));
    }

    /// All errors as one `syn::Error` (each keeps its own span), in order, or `None`.
    pub fn into_error(self) -> Option<syn::Error> {
        let mut checked = self.checked;
        // Stable: errors at one mark keep the order they were pushed in.
        checked.sort_by_key(|(m, _)| m.0);
        let mut checked = checked.into_iter().peekable();
        let mut all = Vec::new();
        for (i, e) in self.read.into_iter().enumerate() {
            while let Some((_, c)) = checked.next_if(|(m, _)| m.0 <= i) {
                all.push(c);
            }
            all.push(e);
        }
        all.extend(checked.map(|(_, c)| c));
        all.into_iter().reduce(|mut all, e| {
            all.combine(e);
            all
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(errors: Errors) -> Vec<String> {
        errors
            .into_error()
            .map(|e| e.into_iter().map(|e| e.to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn checks_land_where_reading_reached() {
        let e = |m: &str| syn::Error::new(proc_macro2::Span::call_site(), m);
        let mut errors = Errors::default();
        let start = errors.mark();
        errors.push(e("read 1"));
        let after_one = errors.mark();
        errors.push(e("read 2"));
        let end = errors.mark();
        errors.push_at(end, e("check at end"));
        errors.push_at(after_one, e("check after 1"));
        errors.push_at(start, e("check at start"));
        errors.push_at(after_one, e("another after 1"));
        assert_eq!(
            messages(errors),
            [
                "check at start",
                "read 1",
                "check after 1",
                "another after 1",
                "read 2",
                "check at end"
            ]
        );
        let mut first = Errors::default();
        first.push(e("a"));
        let mut second = Errors::default();
        second.push(e("b"));
        let mark = second.mark();
        second.push_at(mark, e("after b"));
        first.append(second);
        first.push(e("c"));
        assert_eq!(messages(first), ["a", "b", "after b", "c"]);
        assert!(Errors::default().into_error().is_none());
    }
}
