//! The sections of `reports/PERFORMANCE.md` that other targets write between two markers: 2a
//! (the `instructions` target), 2b (the `nullable` target), 2c (the `peers` target), 2d (the
//! opt-in `bench/seaorm` crate), 5 (the `compile` target), 4a (the `concurrency` target), 4b and 4d (the `scale` target),
//! 4c (the `shards` target), 4e (the `http` target) and 4f (the `spider` target). The `pagination` target
//! rewrites the rest of the file and keeps these sections as it finds them; each target
//! replaces only its own.

/// A section another target writes.
pub struct Section {
    /// The line that opens the section.
    pub start: &'static str,
    /// The line that closes it.
    pub end: &'static str,
    /// The headings the section goes before when the file has none yet, the first found.
    next: &'static [&'static str],
}

/// Section 2a, CPU instructions per page.
#[allow(dead_code)] // Not every target uses every section.
pub const INSTRUCTIONS: Section = Section {
    start: "<!-- section 2a: written by `bash scripts/bench.sh instructions` -->",
    end: "<!-- end of section 2a -->",
    next: &["## 3. Tokens"],
};

/// Section 2b, nullable keys.
#[allow(dead_code)] // Not every target uses every section.
pub const NULLABLE: Section = Section {
    start: "<!-- section 2b: written by `bash scripts/bench.sh nullable` -->",
    end: "<!-- end of section 2b -->",
    next: &["## 3. Tokens"],
};

/// Section 2c, peers in the same run.
#[allow(dead_code)] // Not every target uses every section.
pub const PEERS: Section = Section {
    start: "<!-- section 2c: written by `bash scripts/bench.sh peers` -->",
    end: "<!-- end of section 2c -->",
    next: &["## 3. Tokens"],
};

/// Section 2d, sea-orm's cursor (the opt-in `bench/seaorm` crate).
#[allow(dead_code)] // Not every target uses every section.
pub const SEAORM: Section = Section {
    start: "<!-- section 2d: written by `bash scripts/bench.sh seaorm` -->",
    end: "<!-- end of section 2d -->",
    next: &["## 3. Tokens"],
};

/// Section 5, what the derive costs to compile.
#[allow(dead_code)] // Not every target uses every section.
pub const COMPILE: Section = Section {
    start: "<!-- section 5: written by `bash scripts/bench.sh compile` -->",
    end: "<!-- end of section 5 -->",
    next: &["## Run notes", "## SQL and plans"],
};

/// Section 4a, concurrent walkers.
#[allow(dead_code)] // Not every target uses every section.
pub const CONCURRENCY: Section = Section {
    start: "<!-- section 4a: written by `bash scripts/bench.sh concurrency` -->",
    end: "<!-- end of section 4a -->",
    next: &["## Run notes", "## SQL and plans"],
};

/// Section 4b, ten million rows on one tenant.
#[allow(dead_code)] // Not every target uses every section.
pub const SCALE: Section = Section {
    start: "<!-- section 4b: written by `bash scripts/bench.sh scale` -->",
    end: "<!-- end of section 4b -->",
    next: &["## Run notes", "## SQL and plans"],
};

/// Section 4d, ten million rows in monthly partitions.
#[allow(dead_code)] // Not every target uses every section.
pub const PARTITIONED: Section = Section {
    start: "<!-- section 4d: written by `bash scripts/bench.sh scale` -->",
    end: "<!-- end of section 4d -->",
    next: &["## Run notes", "## SQL and plans"],
};

/// Section 4f, a table sharded across MariaDB servers with Spider.
#[allow(dead_code)] // Not every target uses every section.
pub const SPIDER: Section = Section {
    start: "<!-- section 4f: written by `bash scripts/bench.sh spider` -->",
    end: "<!-- end of section 4f -->",
    next: &["<!-- section 5:", "## Run notes", "## SQL and plans"],
};

/// Section 4e, the HTTP path (the feed server against a hand-written handler).
#[allow(dead_code)] // Not every target uses every section.
pub const HTTP: Section = Section {
    start: "<!-- section 4e: written by `bash scripts/bench.sh http` -->",
    end: "<!-- end of section 4e -->",
    next: &["<!-- section 5:", "## Run notes", "## SQL and plans"],
};

/// Section 4c, a table partitioned across PostgreSQL servers.
#[allow(dead_code)] // Not every target uses every section.
pub const SHARDS: Section = Section {
    start: "<!-- section 4c: written by `bash scripts/bench.sh shards` -->",
    end: "<!-- end of section 4c -->",
    next: &["## Run notes", "## SQL and plans"],
};

impl Section {
    /// The section in `doc`, both markers included, if it has one.
    #[allow(dead_code)] // Used by the `pagination` target only.
    pub fn extract<'d>(&self, doc: &'d str) -> Option<&'d str> {
        let start = doc.find(self.start)?;
        let end = start + doc[start..].find(self.end)? + self.end.len();
        Some(&doc[start..end])
    }

    /// `doc` with the section replaced by `section` (which starts with `start` and ends with
    /// `end`); without one, `section` goes before the first of the `next` headings found, or
    /// at the end.
    #[allow(dead_code)] // Used by the other targets only.
    pub fn replace(&self, doc: &str, section: &str) -> String {
        let section = section.trim_end();
        if let Some(old) = self.extract(doc) {
            return doc.replacen(old, section, 1);
        }
        match self.next.iter().find_map(|next| doc.find(next)) {
            Some(at) => format!("{}{section}\n\n{}", &doc[..at], &doc[at..]),
            None => format!("{}\n\n{section}\n", doc.trim_end()),
        }
    }
}
