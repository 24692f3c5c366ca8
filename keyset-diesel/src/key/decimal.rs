//! Key values of the `bigdecimal` crate (feature `numeric`): exact digits and scale.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::{InvalidKeyValue, KeyValue};
use crate::backend::BackendKind;
use bigdecimal::{FromPrimitive, ToPrimitive};

impl KeyValue for bigdecimal::BigDecimal {
    /// `[digits, scale]`: the value is `digits × 10^-scale`, exactly, whatever its size.
    type Repr = (String, i64);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("decimal")
    }
    fn to_repr(&self) -> Self::Repr {
        let (digits, scale) = self.as_bigint_and_exponent();
        (digits.to_string(), scale)
    }
    fn from_repr((digits, scale): Self::Repr) -> Result<Self, InvalidKeyValue> {
        // Bounded: a token is at most a few kilobytes, and no database column has a scale
        // beyond a few thousand digits.
        if digits.len() > 1000 || !(-10_000..=10_000).contains(&scale) {
            return Err(InvalidKeyValue("decimal out of range"));
        }
        let digits: bigdecimal::num_bigint::BigInt = digits
            .parse()
            .map_err(|_| InvalidKeyValue("decimal digits do not parse"))?;
        Ok(bigdecimal::BigDecimal::new(digits, scale))
    }
    /// PostgreSQL and MySQL bind the exact digits and compare them exactly with the column's,
    /// whatever its scale (`NUMERIC(10,2)` against a bound of `1.005`). SQLite has no decimal
    /// type: Diesel binds an `f64` there and reads one back as its exact binary expansion
    /// (`BigDecimal::from_f64`), so a cursor that is not such an expansion (`1.005` rather than
    /// `1.00499999999999989341858963598497211933135986328125`) is refused; every value read
    /// from SQLite passes.
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        if backend != BackendKind::Sqlite {
            return Ok(());
        }
        let bound = self.to_f64().and_then(bigdecimal::BigDecimal::from_f64);
        if bound.as_ref() == Some(self) {
            Ok(())
        } else {
            Err(InvalidKeyValue(
                "SQLite stores this decimal as an f64 and Diesel reads back its exact binary \
                 expansion, which differs from this value: build the cursor from a row's value \
                 or with `BigDecimal::from_f64`",
            ))
        }
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_round_trip_exactly_at_any_magnitude() {
        for text in [
            "0.00000012",
            "1.2E-7",
            "1e+20",
            "1E30",
            "-99999999.9999",
            "0",
            "0.0001",
        ] {
            let d: bigdecimal::BigDecimal = text.parse().unwrap();
            let back = bigdecimal::BigDecimal::from_repr(d.to_repr()).unwrap();
            assert_eq!(back, d, "{text}");
            assert_eq!(
                back.as_bigint_and_exponent(),
                d.as_bigint_and_exponent(),
                "{text}"
            );
        }
        assert!(bigdecimal::BigDecimal::from_repr(("1".into(), 1_000_000)).is_err());
        assert!(bigdecimal::BigDecimal::from_repr(("1x".into(), 0)).is_err());
    }

    #[test]
    fn sqlite_binds_only_what_an_f64_holds() {
        let d = |t: &str| t.parse::<bigdecimal::BigDecimal>().unwrap();
        // What Diesel reads from SQLite (`from_f64`) binds back.
        for x in [0.0, 1.005, -2.5, 0.1, 1e-7, 123_456.789, f64::MAX / 3.0] {
            let read = bigdecimal::BigDecimal::from_f64(x).unwrap();
            assert_eq!(read.check_bind(BackendKind::Sqlite), Ok(()), "{x}");
        }
        // `1.005` is not an f64: Diesel reads the stored `1.005` back as the f64's exact
        // expansion, so a cursor of `1.005` would stand after rows holding it.
        assert!(d("1.005").check_bind(BackendKind::Sqlite).is_err());
        assert_eq!(d("0.5").check_bind(BackendKind::Sqlite), Ok(()));
        let fine = d("1.00000000000000000000001");
        assert!(fine.check_bind(BackendKind::Sqlite).is_err());
        assert_eq!(fine.check_bind(BackendKind::Postgres), Ok(()));
        assert_eq!(fine.check_bind(BackendKind::Mysql), Ok(()));
    }
}
