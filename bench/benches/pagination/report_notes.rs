//! The explanations in the report: what the numbers of this benchmark show and why, written
//! once the first full run was read. They name no figure: the tables do.

pub fn text() -> String {
    String::new()
}
