//! [`SmallList`]: a list kept on the stack up to [`INLINE`] items, for the per-pass work of the
//! SQL writer (a derived keyset's terms and groups), which then allocates nothing.

/// How many items a [`SmallList`] keeps on the stack: a derived keyset has at most 12 key
/// columns (its key is a tuple of at most 12 values), so it has at most 12 terms and groups.
pub(crate) const INLINE: usize = 12;

/// A list of at most a keyset's columns (its terms, its groups), kept on the stack up to
/// [`INLINE`] items and on the heap beyond (a hand-written keyset with more columns): the SQL
/// of a page is written in every pass Diesel makes over it (binds, cache check, text), and a
/// derived keyset's passes then allocate nothing (the benchmark report, section 2a: each
/// allocation cost more than the list's work).
#[derive(Debug, Clone)]
pub(crate) enum SmallList<T> {
    Inline { items: [T; INLINE], len: usize },
    Heap(Vec<T>),
}

impl<T: Copy + Default> SmallList<T> {
    pub(crate) fn new() -> Self {
        SmallList::Inline {
            items: [T::default(); INLINE],
            len: 0,
        }
    }

    pub(crate) fn push(&mut self, item: T) {
        match self {
            SmallList::Inline { items, len } if *len < INLINE => {
                items[*len] = item;
                *len += 1;
            }
            SmallList::Inline { items, .. } => {
                let mut heap = items.to_vec();
                heap.push(item);
                *self = SmallList::Heap(heap);
            }
            SmallList::Heap(heap) => heap.push(item),
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for SmallList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = SmallList::new();
        for item in iter {
            out.push(item);
        }
        out
    }
}

impl<T> std::ops::Deref for SmallList<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            SmallList::Inline { items, len } => &items[..*len],
            SmallList::Heap(heap) => heap,
        }
    }
}

impl<T> std::ops::DerefMut for SmallList<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            SmallList::Inline { items, len } => &mut items[..*len],
            SmallList::Heap(heap) => heap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_lists_keep_every_item_past_the_inline_ones() {
        // A hand-written keyset may have more columns than a derived one: the 13th item goes to
        // the heap, in order, and the list keeps them all.
        let many: Vec<usize> = (0..INLINE + 3).collect();
        let list: SmallList<usize> = many.iter().copied().collect();
        assert!(matches!(list, SmallList::Heap(_)));
        assert_eq!(list.to_vec(), many);
        let few: SmallList<usize> = many[..3].iter().copied().collect();
        assert!(matches!(few, SmallList::Inline { len: 3, .. }));
        assert_eq!(few.to_vec(), many[..3].to_vec());
    }
}
