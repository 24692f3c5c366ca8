//! The Chinook sample database (MIT licensed): real ties (invoice dates, two unit prices),
//! decimals and long text. The tests read it at run time from `data/chinook` in the shared
//! directory beside the repository ([`crate::shared_data`]); it is never copied in.
//!
//! Partner: `tests/suites/src/chinook.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.
//!
//! Walks: Invoice by (invoice date DESC, invoice id DESC); Track by (unit price DESC, name ASC,
//! track id ASC), by (milliseconds ASC, track id ASC) and by composer (NULLs last, or first in
//! descending order); page sizes 1, 7 and 50. Each walk must equal the same plain `ORDER BY`:
//! [`check_all`] runs them all on one backend.

use crate::models::Walk;

/// What the Chinook oracle needs: the `ORDER BY` and id column in the backend's naming.
pub trait ChinookOracle {
    /// SQL table name.
    const TABLE: &'static str;
    /// The id (tie-breaker) column.
    const ID: &'static str;
    /// `ORDER BY` terms.
    const ORDER: &'static [crate::models::OrderTerm];
    fn id(&self) -> i64;
}

/// The five Chinook models of one naming ([`snake::Models`] or [`camel::Models`]) on
/// connection `C`.
pub trait Models<C> {
    type InvoiceByDate: Walk<C, Filter = ()> + ChinookOracle;
    type TrackByPrice: Walk<C, Filter = ()> + ChinookOracle;
    type TrackByComposer: Walk<C, Filter = ()> + ChinookOracle;
    type TrackByComposerDesc: Walk<C, Filter = ()> + ChinookOracle;
    type TrackByLength: Walk<C, Filter = ()> + ChinookOracle;
}

/// Declares the Chinook schema and models in the current module, with SQL names `$($sql)*`.
#[macro_export]
macro_rules! chinook_schema {
    (
        invoice: $invoice:literal, invoice_id: $invoice_id:literal, invoice_date: $invoice_date:literal,
        track: $track:literal, track_id: $track_id:literal, name: $name:literal,
        composer: $composer:literal, milliseconds: $ms:literal, unit_price: $price:literal
    ) => {
        diesel::table! {
            #[sql_name = $invoice]
            invoice (invoice_id) {
                #[sql_name = $invoice_id]
                invoice_id -> Integer,
                #[sql_name = $invoice_date]
                invoice_date -> Timestamp,
            }
        }

        diesel::table! {
            #[sql_name = $track]
            track (track_id) {
                #[sql_name = $track_id]
                track_id -> Integer,
                #[sql_name = $name]
                name -> Text,
                #[sql_name = $composer]
                composer -> Nullable<Text>,
                #[sql_name = $ms]
                milliseconds -> Integer,
                #[sql_name = $price]
                unit_price -> Numeric,
            }
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = invoice)]
        pub struct InvoiceByDate {
            #[keyset(desc)]
            pub invoice_date: chrono::NaiveDateTime,
            #[keyset(desc, unique)]
            pub invoice_id: i32,
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = track)]
        pub struct TrackByPrice {
            #[keyset(desc)]
            pub unit_price: bigdecimal::BigDecimal,
            #[keyset(asc)]
            pub name: String,
            #[keyset(asc, unique)]
            pub track_id: i32,
            pub composer: Option<String>,
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = track)]
        pub struct TrackByLength {
            #[keyset(asc)]
            pub milliseconds: i32,
            #[keyset(asc, unique)]
            pub track_id: i32,
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = track)]
        pub struct TrackByComposer {
            #[keyset(asc, nulls_last)]
            pub composer: Option<String>,
            #[keyset(asc, unique)]
            pub track_id: i32,
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = track)]
        pub struct TrackByComposerDesc {
            #[keyset(desc, nulls_first)]
            pub composer: Option<String>,
            #[keyset(asc)]
            pub name: String,
            #[keyset(desc, unique)]
            pub track_id: i32,
        }

        impl $crate::chinook::ChinookOracle for TrackByComposer {
            const TABLE: &'static str = $track;
            const ID: &'static str = $track_id;
            const ORDER: &'static [$crate::models::OrderTerm] = &[
                ($composer, "ASC", Some("nulls_last")),
                ($track_id, "ASC", None),
            ];
            fn id(&self) -> i64 {
                self.track_id.into()
            }
        }

        impl $crate::chinook::ChinookOracle for TrackByComposerDesc {
            const TABLE: &'static str = $track;
            const ID: &'static str = $track_id;
            const ORDER: &'static [$crate::models::OrderTerm] = &[
                ($composer, "DESC", Some("nulls_first")),
                ($name, "ASC", None),
                ($track_id, "DESC", None),
            ];
            fn id(&self) -> i64 {
                self.track_id.into()
            }
        }

        impl $crate::chinook::ChinookOracle for InvoiceByDate {
            const TABLE: &'static str = $invoice;
            const ID: &'static str = $invoice_id;
            const ORDER: &'static [$crate::models::OrderTerm] =
                &[($invoice_date, "DESC", None), ($invoice_id, "DESC", None)];
            fn id(&self) -> i64 {
                self.invoice_id.into()
            }
        }

        impl $crate::chinook::ChinookOracle for TrackByPrice {
            const TABLE: &'static str = $track;
            const ID: &'static str = $track_id;
            const ORDER: &'static [$crate::models::OrderTerm] = &[
                ($price, "DESC", None),
                ($name, "ASC", None),
                ($track_id, "ASC", None),
            ];
            fn id(&self) -> i64 {
                self.track_id.into()
            }
        }

        impl $crate::chinook::ChinookOracle for TrackByLength {
            const TABLE: &'static str = $track;
            const ID: &'static str = $track_id;
            const ORDER: &'static [$crate::models::OrderTerm] =
                &[($ms, "ASC", None), ($track_id, "ASC", None)];
            fn id(&self) -> i64 {
                self.track_id.into()
            }
        }

        /// This naming's models, for [`check_all`](crate::chinook::check_all).
        pub struct Models;

        impl<C> $crate::chinook::Models<C> for Models
        where
            InvoiceByDate: $crate::models::Walk<C, Filter = ()>,
            TrackByPrice: $crate::models::Walk<C, Filter = ()>,
            TrackByComposer: $crate::models::Walk<C, Filter = ()>,
            TrackByComposerDesc: $crate::models::Walk<C, Filter = ()>,
            TrackByLength: $crate::models::Walk<C, Filter = ()>,
        {
            type InvoiceByDate = InvoiceByDate;
            type TrackByPrice = TrackByPrice;
            type TrackByComposer = TrackByComposer;
            type TrackByComposerDesc = TrackByComposerDesc;
            type TrackByLength = TrackByLength;
        }

        $crate::impl_walk!(async InvoiceByDate, invoice);
        $crate::impl_walk!(async TrackByPrice, track);
        $crate::impl_walk!(async TrackByLength, track);
        $crate::impl_walk!(async TrackByComposer, track);
        $crate::impl_walk!(async TrackByComposerDesc, track);
    };
}

/// PostgreSQL's Chinook: snake case.
pub mod snake {
    crate::chinook_schema! {
        invoice: "invoice", invoice_id: "invoice_id", invoice_date: "invoice_date",
        track: "track", track_id: "track_id", name: "name",
        composer: "composer", milliseconds: "milliseconds", unit_price: "unit_price"
    }
}

/// SQLite's and MySQL's Chinook: camel case.
pub mod camel {
    crate::chinook_schema! {
        invoice: "Invoice", invoice_id: "InvoiceId", invoice_date: "InvoiceDate",
        track: "Track", track_id: "TrackId", name: "Name",
        composer: "Composer", milliseconds: "Milliseconds", unit_price: "UnitPrice"
    }
}

/// The PostgreSQL script without its `CREATE DATABASE` / `\c` prologue, to run in the test
/// schema.
pub fn postgres_script(text: &str) -> String {
    match text.find("\\c chinook;") {
        Some(at) => text[at + "\\c chinook;".len()..].to_string(),
        None => text.to_string(),
    }
}
