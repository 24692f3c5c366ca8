//! Key values of the `bigdecimal` crate (feature `numeric`): exact digits and scale.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::{InvalidKeyValue, KeyValue};

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
}
