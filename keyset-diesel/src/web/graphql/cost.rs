//! What a GraphQL document asks of the database, counted before anything runs:
//! [`DocumentCost`], and [`CostLimit`], the async-graphql extension that refuses a document
//! over its limits.
//!
//! async-graphql's own complexity counts one per field: a connection of 100 rows, or a
//! `totalCount` that reads a million, costs what any other field does. A single number also
//! cannot cap two things at once: a document that gives up its count could spend that
//! count's weight on more pages. So the cost has one count per kind of work, each with its
//! own limit: page reads (by their page size, and multiplied by the rows of every connection
//! they are nested in), total counts, and selections (what validation and execution walk,
//! fragments expanded).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextPrepareRequest,
};
use async_graphql::parser::types::{
    ExecutableDocument, Field, FragmentDefinition, Selection, SelectionSet, VariableDefinition,
};
use async_graphql::{
    Name, Pos, Positioned, Request, ServerError, ServerResult, Value as ConstValue, Variables,
};

use super::error;
use crate::page_size::PageSizePolicy;
use crate::web::Problem;

/// The field of a [`RelayConnection`](super::RelayConnection) that reads a total count.
const TOTAL_COUNT_FIELD: &str = "totalCount";

/// Selections nested deeper than this (fields, fragment spreads and inline fragments, one in
/// another) make a document unbounded: the count stops there rather than recurse further.
/// async-graphql refuses documents nested past 32 by default.
const MAX_NESTING: usize = 64;

/// The default of [`CostLimit::pages`].
const DEFAULT_PAGES: u64 = 8;
/// The default of [`CostLimit::counts`].
const DEFAULT_COUNTS: u64 = 1;
/// The default of [`CostLimit::selections`].
const DEFAULT_SELECTIONS: u64 = 500;

/// What a document asks of the database, counted from its text and variables before it runs
/// (by [`CostLimit`], or [`DocumentCost::of`]). Every count saturates at `u64::MAX`; a
/// fragment cycle, or selections nested past 64, count as `u64::MAX` throughout.
///
/// A connection field is one of the names given to [`CostLimit::new`], wherever it appears.
/// Its page size is the one [`RelayArgs::resolve`](super::RelayArgs::resolve) uses: `first`
/// or `last` (a literal or a variable), else the policy's default; a size over the policy's
/// maximum, or that is not a whole number of at least 1, counts as the maximum (the resolver
/// clamps it, or refuses it before any read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocumentCost {
    /// Page reads: one per connection field, times the page size of each connection it is
    /// nested in (a connection inside another's `edges` is read once per row).
    pub pages: u64,
    /// The rows those reads fetch at most: each page's size, nested ones multiplied as
    /// `pages` are.
    pub rows: u64,
    /// Total counts: connections whose selection asks for `totalCount` (each reads every row
    /// the connection's filter matches), nested ones multiplied as `pages` are.
    pub counts: u64,
    /// Selections once fragments are expanded (each field, fragment spread and inline
    /// fragment): what validation and execution walk.
    pub selections: u64,
}

impl DocumentCost {
    /// Every count at `u64::MAX`.
    const UNBOUNDED: DocumentCost = DocumentCost {
        pages: u64::MAX,
        rows: u64::MAX,
        counts: u64::MAX,
        selections: u64::MAX,
    };

    /// The cost of the operation `operation_name` of `document` with `variables`: of every
    /// operation, the highest of each count, when the name is `None` or names none of them.
    /// `connections` are the connection fields' names, `policy` their page sizes.
    pub fn of(
        document: &ExecutableDocument,
        operation_name: Option<&str>,
        variables: &Variables,
        connections: &[impl AsRef<str>],
        policy: &PageSizePolicy,
    ) -> DocumentCost {
        let named = operation_name.filter(|wanted| {
            document
                .operations
                .iter()
                .any(|(name, _)| name.is_some_and(|name| name.as_str() == *wanted))
        });
        let mut cost = DocumentCost::default();
        for (name, operation) in document.operations.iter() {
            if named.is_some_and(|wanted| name.is_none_or(|name| name.as_str() != wanted)) {
                continue;
            }
            let mut walk = Walk {
                fragments: &document.fragments,
                variables,
                definitions: &operation.node.variable_definitions,
                connections,
                policy,
                done: HashMap::new(),
            };
            let one = walk
                .selection_set(&operation.node.selection_set.node, 0)
                .cost;
            cost = DocumentCost {
                pages: cost.pages.max(one.pages),
                rows: cost.rows.max(one.rows),
                counts: cost.counts.max(one.counts),
                selections: cost.selections.max(one.selections),
            };
        }
        cost
    }
}

/// A selection set's cost, and whether it selects `totalCount` itself (through fragments
/// too), which counts only when the set is a connection's.
#[derive(Clone, Copy, Default)]
struct Tally {
    cost: DocumentCost,
    total_count: bool,
}

impl Tally {
    const UNBOUNDED: Tally = Tally {
        cost: DocumentCost::UNBOUNDED,
        total_count: true,
    };

    fn add(self, other: Tally) -> Tally {
        let (a, b) = (self.cost, other.cost);
        Tally {
            cost: DocumentCost {
                pages: a.pages.saturating_add(b.pages),
                rows: a.rows.saturating_add(b.rows),
                counts: a.counts.saturating_add(b.counts),
                selections: a.selections.saturating_add(b.selections),
            },
            total_count: self.total_count || other.total_count,
        }
    }
}

/// One operation's walk: each fragment is counted once (`done`, with `None` while it is
/// being counted: a cycle), so a document of fragments spread in fragments costs its
/// expanded size without being expanded.
struct Walk<'a, C> {
    fragments: &'a HashMap<Name, Positioned<FragmentDefinition>>,
    variables: &'a Variables,
    definitions: &'a [Positioned<VariableDefinition>],
    connections: &'a [C],
    policy: &'a PageSizePolicy,
    done: HashMap<&'a str, Option<Tally>>,
}

impl<'a, C: AsRef<str>> Walk<'a, C> {
    fn selection_set(&mut self, set: &'a SelectionSet, depth: usize) -> Tally {
        if depth > MAX_NESTING {
            return Tally::UNBOUNDED;
        }
        let one = Tally {
            cost: DocumentCost {
                selections: 1,
                ..DocumentCost::default()
            },
            total_count: false,
        };
        set.items.iter().fold(Tally::default(), |tally, item| {
            let inner = match &item.node {
                Selection::Field(field) => self.field(&field.node, depth),
                Selection::FragmentSpread(spread) => {
                    self.fragment(spread.node.fragment_name.node.as_str(), depth)
                }
                Selection::InlineFragment(inline) => {
                    self.selection_set(&inline.node.selection_set.node, depth + 1)
                }
            };
            tally.add(one).add(inner)
        })
    }

    fn field(&mut self, field: &'a Field, depth: usize) -> Tally {
        let inner = self.selection_set(&field.selection_set.node, depth + 1);
        let name = field.name.node.as_str();
        if !self.connections.iter().any(|c| c.as_ref() == name) {
            return Tally {
                cost: inner.cost,
                total_count: name == TOTAL_COUNT_FIELD,
            };
        }
        // The page is read once; what its selection reads, once per row.
        let size = self.page_size(field);
        let per_row = |n: u64| n.saturating_mul(size);
        Tally {
            cost: DocumentCost {
                pages: per_row(inner.cost.pages).saturating_add(1),
                rows: per_row(inner.cost.rows).saturating_add(size),
                counts: per_row(inner.cost.counts).saturating_add(u64::from(inner.total_count)),
                selections: inner.cost.selections,
            },
            total_count: false,
        }
    }

    fn fragment(&mut self, name: &'a str, depth: usize) -> Tally {
        match self.done.get(name) {
            Some(Some(tally)) => return *tally,
            Some(None) => return Tally::UNBOUNDED,
            None => {}
        }
        // An unknown fragment is refused by validation, before anything runs.
        let Some(fragment) = self.fragments.get(name) else {
            return Tally::default();
        };
        self.done.insert(name, None);
        let tally = self.selection_set(&fragment.node.selection_set.node, depth + 1);
        self.done.insert(name, Some(tally));
        tally
    }

    /// The page size a connection field reads at most (see [`DocumentCost`]).
    fn page_size(&self, field: &Field) -> u64 {
        let max = u64::from(self.policy.max_size());
        let mut size = None;
        for argument in ["first", "last"] {
            let Some(value) = field.get_argument(argument) else {
                continue;
            };
            let value = value
                .node
                .clone()
                .into_const_with(|name| Ok::<_, Infallible>(self.variable(&name)));
            let asked = match value {
                Ok(ConstValue::Null) => continue,
                // 0: flags only, one row read (`RelayArgs::resolve`).
                Ok(ConstValue::Number(n)) => n.as_u64().map_or(max, |n| n.clamp(1, max)),
                _ => max,
            };
            size = Some(size.map_or(asked, |s: u64| s.max(asked)));
        }
        size.unwrap_or_else(|| u64::from(self.policy.default_size()))
    }

    /// A variable's value: the request's, else its default, else null.
    fn variable(&self, name: &Name) -> ConstValue {
        self.variables.get(name).cloned().unwrap_or_else(|| {
            self.definitions
                .iter()
                .find(|d| d.node.name.node == *name)
                .and_then(|d| d.node.default_value().cloned())
                .unwrap_or(ConstValue::Null)
        })
    }
}

/// Limits on a document's [`DocumentCost`], and the async-graphql extension that applies
/// them before anything runs: add it to the schema with
/// [`SchemaBuilder::extension`](async_graphql::SchemaBuilder::extension). For each request it
/// parses the document (once: async-graphql reuses it) and counts its cost; a document that
/// does not parse, or asks for more than a limit, gets one GraphQL error and `data: null`,
/// and no resolver runs.
///
/// * A syntax error: message `the GraphQL document does not parse`, `extensions.code`
///   `query_invalid`, `extensions.status` 400, and the position in `locations`; never the
///   document's text (async-graphql's own message quotes the line, and with it any cursor
///   token on it).
/// * Over a limit: message `the document asks for too much work`, `extensions.code`
///   `query_too_complex`, `extensions.status` 400, and `extensions.detail` naming the limit
///   (`"20 page reads; at most 8"`).
///
/// Limits, by default: 8 page reads, 1 total count, 500 selections. Rows need no limit of
/// their own: each page read fetches at most the policy's maximum.
///
/// Connections under a list field that is not a connection are read once per item, which
/// the document does not tell: name such list fields as connections too, or keep
/// connections out of them. async-graphql's `limit_complexity` and `limit_depth` still apply
/// and are checked after this one.
///
/// ```
/// use async_graphql::Request;
/// use keyset_diesel::web::graphql::CostLimit;
/// use keyset_diesel::web::PageSizePolicy;
///
/// let policy = PageSizePolicy::new(20, 100).expect("default <= maximum");
/// let limit = CostLimit::new(policy, &["events"]).pages(8).counts(1);
/// // Two pages: 50 rows and the default 20; one count.
/// let mut request = Request::new(
///     "{ a: events(first: 50) { totalCount edges { cursor } } b: events { edges { cursor } } }",
/// );
/// let cost = limit.check(&mut request).expect("within the limits");
/// assert_eq!((cost.pages, cost.rows, cost.counts), (2, 70, 1));
/// // Two counts.
/// let mut request = Request::new("{ a: events { totalCount } b: events { totalCount } }");
/// let refused = limit.check(&mut request).unwrap_err();
/// let code = refused.extensions.as_ref().and_then(|e| e.get("code")).cloned();
/// assert_eq!(code, Some("query_too_complex".into()));
/// // With the schema: `Schema::build(..).extension(limit).finish()`.
/// ```
#[derive(Debug, Clone)]
pub struct CostLimit {
    policy: PageSizePolicy,
    connections: Arc<[String]>,
    max: DocumentCost,
}

impl CostLimit {
    /// Limits for a schema whose connection fields are named `connections` (as a document
    /// writes them: `events`, not the resolver's Rust name) and read pages by `policy`
    /// (the one their resolvers give [`RelayArgs::resolve`](super::RelayArgs::resolve)),
    /// with the default limits.
    pub fn new(policy: PageSizePolicy, connections: &[&str]) -> CostLimit {
        CostLimit {
            policy,
            connections: connections.iter().map(|c| (*c).to_string()).collect(),
            max: DocumentCost {
                pages: DEFAULT_PAGES,
                rows: u64::MAX,
                counts: DEFAULT_COUNTS,
                selections: DEFAULT_SELECTIONS,
            },
        }
    }

    /// At most `pages` page reads per document ([`DocumentCost::pages`]).
    #[must_use]
    pub fn pages(mut self, pages: u64) -> CostLimit {
        self.max.pages = pages;
        self
    }

    /// At most `counts` total counts per document ([`DocumentCost::counts`]); 0 refuses
    /// every `totalCount`.
    #[must_use]
    pub fn counts(mut self, counts: u64) -> CostLimit {
        self.max.counts = counts;
        self
    }

    /// At most `selections` selections per document, fragments expanded
    /// ([`DocumentCost::selections`]).
    #[must_use]
    pub fn selections(mut self, selections: u64) -> CostLimit {
        self.max.selections = selections;
        self
    }

    /// The cost of `request`'s document, parsed into the request (async-graphql then does
    /// not parse it again).
    ///
    /// # Errors
    /// `query_invalid` when the document does not parse (see [`CostLimit`]).
    pub fn cost(&self, request: &mut Request) -> Result<DocumentCost, ServerError> {
        // Set aside while the request lends its document.
        let variables = std::mem::take(&mut request.variables);
        let operation_name = request.operation_name.take();
        let cost = request.parsed_query().map(|document| {
            DocumentCost::of(
                document,
                operation_name.as_deref(),
                &variables,
                &self.connections,
                &self.policy,
            )
        });
        request.variables = variables;
        request.operation_name = operation_name;
        cost.map_err(|e| {
            // The positions only: async-graphql's message quotes the document.
            let problem = Problem::new(400, "query_invalid", "the GraphQL document does not parse");
            refusal(&problem, e.locations, None)
        })
    }

    /// The cost of `request`'s document, if it is within every limit.
    ///
    /// # Errors
    /// `query_invalid` when the document does not parse, `query_too_complex` over a limit
    /// (see [`CostLimit`]).
    pub fn check(&self, request: &mut Request) -> Result<DocumentCost, ServerError> {
        let cost = self.cost(request)?;
        let over = |asked: u64, max: u64, what: &str| {
            (asked > max).then(|| format!("{asked} {what}; at most {max}"))
        };
        let detail = over(cost.pages, self.max.pages, "page reads")
            .or_else(|| over(cost.counts, self.max.counts, "total counts"))
            .or_else(|| over(cost.selections, self.max.selections, "selections"));
        match detail {
            None => Ok(cost),
            Some(detail) => {
                let problem = Problem::new(
                    400,
                    "query_too_complex",
                    "the document asks for too much work",
                );
                Err(refusal(&problem, Vec::new(), Some(detail)))
            }
        }
    }
}

/// The GraphQL error of a document refused before it runs: as [`error`], at `locations`,
/// with `extensions.detail`.
fn refusal(problem: &Problem, locations: Vec<Pos>, detail: Option<String>) -> ServerError {
    let mut refused = ServerError::new(problem.title.clone(), None);
    refused.locations = locations;
    refused.extensions = error(problem).extensions;
    if let Some(detail) = detail {
        refused
            .extensions
            .get_or_insert_with(Default::default)
            .set("detail", detail);
    }
    refused
}

impl ExtensionFactory for CostLimit {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(self.clone())
    }
}

#[async_graphql::async_trait::async_trait]
impl Extension for CostLimit {
    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        mut request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        self.check(&mut request)?;
        next.run(ctx, request).await
    }
}

#[cfg(test)]
mod tests;
