//! Holds the trybuild UI tests of keyset-derive and keyset-diesel (`tests/ui/`); no code of its own.
