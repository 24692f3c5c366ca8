//! The web edge: a paging request's parameters ([`PageParams`], checked into a
//! [`PageRequest`]), the page as a JSON body ([`PageResponse`]), and [`Problem`], the one table
//! of statuses and codes every error of the crate gets in a response. With the feature `axum`,
//! `PageParams` and [`SortParam`] are extractors and `Problem` a response.

#[cfg(feature = "axum")]
mod axum;
#[cfg(feature = "axum")]
pub use self::axum::SortParam;
#[cfg(feature = "async-graphql")]
pub mod graphql;
mod links;
mod params;
mod problem;
mod response;

pub use self::links::{PageLinks, CURSOR_PARAM, UNTIL_PARAM};
pub use self::params::{PageParams, PageRequest, PageRequestError};
pub use self::problem::{Problem, CURSOR_REFUSED};
pub use self::response::PageResponse;
pub use crate::page_size::{PageSizeError, PageSizePolicy};
