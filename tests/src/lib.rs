//! Shared fixtures for the backend suites.
