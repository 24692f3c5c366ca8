//! Key values of the `time` crate (feature `time`). They share chrono's type tags and token
//! representations: each binds the same SQL value as its chrono counterpart (Diesel converts
//! an `OffsetDateTime` to UTC on every backend, so only its instant is bound, never its
//! offset), and a token of one decodes into the other.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::{check_microseconds, InvalidKeyValue, KeyValue};
use crate::backend::BackendKind;
use ::time::{Date, OffsetDateTime, PrimitiveDateTime, Time};

/// Days from the Julian day number to chrono's day number from the common era
/// (0001-01-01 is Julian day 1 721 426 and CE day 1).
const JULIAN_DAY_OF_CE_DAY_0: i32 = 1_721_425;

fn instant(secs: i64, nanos: u32) -> Result<OffsetDateTime, InvalidKeyValue> {
    OffsetDateTime::from_unix_timestamp(secs)
        .and_then(|t| t.replace_nanosecond(nanos))
        .map_err(|_| InvalidKeyValue("timestamp out of range"))
}

impl KeyValue for OffsetDateTime {
    /// The instant: its offset is not part of the key (Diesel binds the instant).
    type Repr = (i64, u32);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("datetime_utc")
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        check_microseconds(self.nanosecond(), backend)
    }
    fn to_repr(&self) -> Self::Repr {
        (self.unix_timestamp(), self.nanosecond())
    }
    fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
        instant(secs, nanos)
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        // The instants' order, whatever the offsets (as `timestamptz` compares).
        Some(self.cmp(other))
    }
}

impl KeyValue for PrimitiveDateTime {
    type Repr = (i64, u32);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("naive_datetime")
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        check_microseconds(self.nanosecond(), backend)
    }
    fn to_repr(&self) -> Self::Repr {
        let utc = self.assume_utc();
        (utc.unix_timestamp(), utc.nanosecond())
    }
    fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
        instant(secs, nanos).map(|t| PrimitiveDateTime::new(t.date(), t.time()))
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl KeyValue for Date {
    type Repr = i32;
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("date")
    }
    fn to_repr(&self) -> Self::Repr {
        self.to_julian_day() - JULIAN_DAY_OF_CE_DAY_0
    }
    fn from_repr(days: Self::Repr) -> Result<Self, InvalidKeyValue> {
        days.checked_add(JULIAN_DAY_OF_CE_DAY_0)
            .and_then(|julian| Date::from_julian_day(julian).ok())
            .ok_or(InvalidKeyValue("date out of range"))
    }
    fn exact_order() -> bool {
        true
    }
    fn exact_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl KeyValue for Time {
    type Repr = (u32, u32);
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("time")
    }
    fn to_repr(&self) -> Self::Repr {
        let (h, m, s, nanos) = self.as_hms_nano();
        (
            u32::from(h) * 3600 + u32::from(m) * 60 + u32::from(s),
            nanos,
        )
    }
    fn check_bind(&self, backend: BackendKind) -> Result<(), InvalidKeyValue> {
        let nanos = self.nanosecond();
        match backend {
            // Diesel 2.4's `ToSql<Time, Mysql>` for `time::Time` binds no fraction at all.
            BackendKind::Mysql if nanos != 0 => Err(InvalidKeyValue(
                "Diesel 2.4 binds a time::Time on MySQL without its fraction of a second; \
                 read a TIME(n) column holding fractions as chrono::NaiveTime",
            )),
            // Diesel 2.4's `ToSql<Time, Sqlite>` writes whole seconds when the
            // microseconds are 0, dropping 1 to 999 nanoseconds.
            BackendKind::Sqlite if (1..1_000).contains(&nanos) => Err(InvalidKeyValue(
                "Diesel 2.4 binds a time::Time on SQLite without a fraction below one \
                     microsecond; read such text as chrono::NaiveTime",
            )),
            // PostgreSQL: whole microseconds.
            _ => check_microseconds(nanos, backend),
        }
    }
    fn from_repr((secs, nanos): Self::Repr) -> Result<Self, InvalidKeyValue> {
        const OUT: InvalidKeyValue = InvalidKeyValue("time of day out of range");
        if secs >= 86_400 {
            return Err(OUT);
        }
        // In range: each part fits its `u8`.
        let part = |v: u32| u8::try_from(v).map_err(|_| OUT);
        Time::from_hms_nano(
            part(secs / 3600)?,
            part(secs / 60 % 60)?,
            part(secs % 60)?,
            nanos,
        )
        .map_err(|_| OUT)
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
    use crate::key::KeyTuple;

    #[test]
    fn time_values_keep_nanoseconds_and_refuse_what_they_cannot_hold() {
        use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};
        let date = Date::from_calendar_date(2026, Month::October, 10).unwrap();
        let t = PrimitiveDateTime::new(date, Time::from_hms_nano(13, 5, 9, 123_456_789).unwrap());
        assert_eq!(PrimitiveDateTime::from_repr(t.to_repr()), Ok(t));
        // An offset is not part of the key: the instant comes back (in UTC), equal as an instant.
        let zoned = t.assume_offset(UtcOffset::from_hms(5, 45, 0).unwrap());
        let back = OffsetDateTime::from_repr(zoned.to_repr()).unwrap();
        assert_eq!(back, zoned);
        assert_eq!(back.offset(), UtcOffset::UTC);
        assert_eq!(zoned.to_repr(), back.to_repr());
        for d in [Date::MIN, Date::MAX, date] {
            assert_eq!(Date::from_repr(d.to_repr()), Ok(d));
        }
        assert!(Date::from_repr(Date::MAX.to_repr() + 1).is_err());
        assert!(Date::from_repr(i32::MAX).is_err());
        for (h, m, s, n) in [
            (0, 0, 0, 0),
            (0, 0, 0, 1),
            (23, 59, 59, 999_999_999),
            (12, 34, 56, 500_000),
        ] {
            let v = Time::from_hms_nano(h, m, s, n).unwrap();
            assert_eq!(Time::from_repr(v.to_repr()), Ok(v));
        }
        assert!(Time::from_repr((86_400, 0)).is_err());
        assert!(Time::from_repr((0, 1_000_000_000)).is_err());
        assert!(PrimitiveDateTime::from_repr((i64::MAX, 0)).is_err());
        assert!(PrimitiveDateTime::from_repr((0, 1_000_000_000)).is_err());
    }

    #[test]
    fn time_of_day_refuses_the_fractions_diesel_does_not_bind() {
        let t = |nanos| time::Time::from_hms_nano(12, 0, 0, nanos).unwrap();
        let ok = |v: time::Time, b| v.check_bind(b).is_ok();
        for b in [
            BackendKind::Postgres,
            BackendKind::Sqlite,
            BackendKind::Mysql,
        ] {
            assert!(ok(t(0), b), "{b:?}");
        }
        // 1 to 999 ns: Diesel writes whole seconds on SQLite.
        for nanos in [1, 500, 999] {
            assert!(!ok(t(nanos), BackendKind::Sqlite));
            assert!(!ok(t(nanos), BackendKind::Mysql));
            // Diesel binds whole microseconds on PostgreSQL.
            assert!(!ok(t(nanos), BackendKind::Postgres));
        }
        assert!(ok(t(1_000), BackendKind::Postgres));
        assert!(!ok(t(1_500), BackendKind::Postgres));
        // Any fraction on MySQL; microseconds and more are written on SQLite.
        for nanos in [1_000, 1_500, 250_000_000, 999_999_999] {
            assert!(ok(t(nanos), BackendKind::Sqlite));
            assert!(!ok(t(nanos), BackendKind::Mysql));
        }
        assert!(Some(t(500)).check_bind(BackendKind::Sqlite).is_err());
        assert!(None::<time::Time>.check_bind(BackendKind::Mysql).is_ok());
        assert_eq!(
            (1i64, t(1_000))
                .check_bind(BackendKind::Mysql)
                .map_err(|(i, _)| i),
            Err(1)
        );
    }

    /// Each `time` type has its chrono counterpart's tag and representation, value for value,
    /// so a token of one decodes into the other as the same SQL value.
    #[cfg(feature = "chrono")]
    #[test]
    fn time_and_chrono_counterparts_share_tags_and_representations() {
        let chrono_ts = chrono::DateTime::from_timestamp(-62_135_596_800 + 86_399, 1).unwrap();
        for c in [
            chrono_ts,
            chrono::DateTime::from_timestamp(0, 0).unwrap(),
            chrono::DateTime::from_timestamp(1_760_097_602, 123_456_789).unwrap(),
            chrono::DateTime::from_timestamp(253_402_300_799, 999_999_999).unwrap(),
        ] {
            let t = time::OffsetDateTime::from_repr(c.to_repr()).unwrap();
            assert_eq!(t.to_repr(), c.to_repr());
            use chrono::{Datelike, Timelike};
            assert_eq!(
                (
                    t.year(),
                    u32::from(t.ordinal()),
                    u32::from(t.hour()),
                    t.nanosecond()
                ),
                (c.year(), c.ordinal(), c.hour(), c.nanosecond())
            );
            let p = time::PrimitiveDateTime::from_repr(c.naive_utc().to_repr()).unwrap();
            assert_eq!(p.to_repr(), c.naive_utc().to_repr());
            let d = time::Date::from_repr(c.date_naive().to_repr()).unwrap();
            assert_eq!(d.to_repr(), c.date_naive().to_repr());
            assert_eq!(
                (d.year(), u32::from(d.month() as u8), u32::from(d.day())),
                (c.year(), c.month(), c.day())
            );
            let tm = time::Time::from_repr(c.time().to_repr()).unwrap();
            assert_eq!(tm.to_repr(), c.time().to_repr());
        }
        assert_eq!(
            time::OffsetDateTime::type_tag(),
            chrono::DateTime::<chrono::Utc>::type_tag()
        );
        assert_eq!(
            time::PrimitiveDateTime::type_tag(),
            chrono::NaiveDateTime::type_tag()
        );
        assert_eq!(time::Date::type_tag(), chrono::NaiveDate::type_tag());
        assert_eq!(time::Time::type_tag(), chrono::NaiveTime::type_tag());
    }
}
