use keyset_diesel::query::KeyValue;

// `#[derive(KeyValue)]` on an enum is for fieldless enums (a PostgreSQL native enum): a variant
// with fields has no label to put in a token. The message names each such variant.
#[derive(Debug, Clone, PartialEq, KeyValue)]
enum Stage {
    Todo,
    Doing { assignee: String },
    Blocked(u32),
}

fn main() {}
