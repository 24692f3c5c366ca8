use keyset_diesel::query::KeyValue;

// `#[derive(KeyValue)]` is for a newtype: one field, whose key value the struct takes over.
// Two fields have no single token representation or order; the message says so.
#[derive(Debug, Clone, PartialEq, KeyValue)]
struct Version(i32, i32);

fn main() {}
