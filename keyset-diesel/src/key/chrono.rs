//! Key values of the `chrono` crate (feature `chrono`): timestamps keep nanoseconds, dates
//! are day numbers.

use std::borrow::Cow;
use std::cmp::Ordering;

use ::chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Timelike, Utc};

use super::{check_microseconds, InvalidKeyValue, KeyValue};
use crate::backend::BackendKind;

impl KeyValue for DateTime<Utc> {
    type Repr = (i64, u32);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("datetime_utc")
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        check_microseconds(self.timestamp_subsec_nanos(), backend)
    }
    fn to_repr(&self) -> Self::Repr {
        (self.timestamp(), self.timestamp_subsec_nanos())
    }
    fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
        DateTime::from_timestamp(secs, nanos).ok_or(InvalidKeyValue("timestamp out of range"))
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl KeyValue for NaiveDateTime {
    type Repr = (i64, u32);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("naive_datetime")
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        check_microseconds(self.and_utc().timestamp_subsec_nanos(), backend)
    }
    fn to_repr(&self) -> Self::Repr {
        let utc = self.and_utc();
        (utc.timestamp(), utc.timestamp_subsec_nanos())
    }
    fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
        DateTime::from_timestamp(secs, nanos)
            .map(|t| t.naive_utc())
            .ok_or(InvalidKeyValue("timestamp out of range"))
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl KeyValue for NaiveDate {
    type Repr = i32;
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("date")
    }
    fn to_repr(&self) -> Self::Repr {
        chrono::Datelike::num_days_from_ce(self)
    }
    fn from_repr(days: Self::Repr) -> Result<Self, InvalidKeyValue> {
        NaiveDate::from_num_days_from_ce_opt(days).ok_or(InvalidKeyValue("date out of range"))
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl KeyValue for NaiveTime {
    type Repr = (u32, u32);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("time")
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        check_microseconds(self.nanosecond(), backend)
    }
    fn to_repr(&self) -> Self::Repr {
        (self.num_seconds_from_midnight(), self.nanosecond())
    }
    fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
        NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos)
            .ok_or(InvalidKeyValue("time of day out of range"))
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
    fn timestamps_keep_nanoseconds() {
        let t = chrono::DateTime::from_timestamp(1_760_097_602, 123_456_789).unwrap();
        assert_eq!(
            chrono::DateTime::<chrono::Utc>::from_repr(t.to_repr()).unwrap(),
            t
        );
        let n = t.naive_utc();
        assert_eq!(chrono::NaiveDateTime::from_repr(n.to_repr()).unwrap(), n);
        assert!(chrono::NaiveDateTime::from_repr((i64::MAX, 0)).is_err());
        for (secs, nanos) in [(0, 0), (0, 1), (86_399, 999_999_999), (45_296, 500_000)] {
            let t = chrono::NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos).unwrap();
            assert_eq!(chrono::NaiveTime::from_repr(t.to_repr()).unwrap(), t);
        }
        assert!(chrono::NaiveTime::from_repr((86_400, 0)).is_err());
        assert!(chrono::NaiveTime::from_repr((0, 2_000_000_000)).is_err());
    }

    #[test]
    fn fractions_below_a_microsecond_are_refused_where_diesel_binds_microseconds() {
        let t = |nanos| chrono::DateTime::from_timestamp(1_760_097_602, nanos).unwrap();
        for b in [BackendKind::Postgres, BackendKind::Mysql] {
            for nanos in [0, 1_000, 999_999_000] {
                assert_eq!(t(nanos).check_bind(b), Ok(()), "{b:?} {nanos}");
                assert_eq!(t(nanos).naive_utc().check_bind(b), Ok(()));
                assert_eq!(t(nanos).time().check_bind(b), Ok(()));
            }
            for nanos in [1, 999, 1_001, 999_999_999] {
                assert!(t(nanos).check_bind(b).is_err(), "{b:?} {nanos}");
                assert!(t(nanos).naive_utc().check_bind(b).is_err());
                assert!(t(nanos).time().check_bind(b).is_err());
            }
        }
        // SQLite stores the text chrono writes, with every digit.
        assert_eq!(t(1).check_bind(BackendKind::Sqlite), Ok(()));
        assert_eq!(t(1).time().check_bind(BackendKind::Sqlite), Ok(()));
    }
}
