//! 32 concurrent walks over HTTP while a writer inserts rows at the head of the list.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use keyset_diesel::web::PageSizePolicy;
use keyset_feed_server::{feed, NewEvent, Settings};

use crate::server::{get, FeedBackend, Server};

/// 32 concurrent walks of a 10,000-row workspace at page size 100 while a writer
/// inserts rows at the head: every walk returns every row that existed when it started exactly
/// once and in order, and no response is a 5xx. Prints pages per second and the p50 / p99 page
/// latency (figures, not assertions).
pub fn concurrent_walks_under_inserts_at_the_head<B: FeedBackend>() {
    const ROWS: usize = 10_000;
    const WALKS: usize = 32;
    const PAGE_SIZE: usize = 100;
    let server = Server::start::<B>(Settings {
        policy: PageSizePolicy::new(PAGE_SIZE as u32, 1000).expect("policy"),
        max_bytes: usize::MAX,
        ..Settings::default()
    });
    let base_time = feed::feed_time("00:00:00") + chrono::Duration::days(30);
    let row = |id: String, at: chrono::NaiveDateTime| NewEvent {
        event_id: id,
        workspace_id: "WL".to_string(),
        occurred_at: at,
        message: "load".to_string(),
        attachment: None,
    };
    let rows: Vec<NewEvent> = (0..ROWS)
        .map(|i| {
            row(
                format!("L{i:05}"),
                base_time + chrono::Duration::seconds(i as i64),
            )
        })
        .collect();
    server
        .rt
        .block_on(server.db.insert_events(&rows))
        .expect("load rows");
    server
        .rt
        .block_on(server.db.grant("member-load", "WL"))
        .expect("membership");
    server.issue_token("member-load");

    let committed = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(WALKS)
        .build()
        .expect("client");
    let started = Instant::now();
    let (walks, written) = server.rt.block_on(async {
        // The writer: each row earlier than every row before it (the new head of the list).
        let writer = {
            let (db, committed, done) = (server.db.clone(), committed.clone(), done.clone());
            tokio::spawn(async move {
                let mut k = 0usize;
                while !done.load(Ordering::SeqCst) && k < 5_000 {
                    let head = row(
                        format!("H{k:05}"),
                        base_time - chrono::Duration::seconds(k as i64 + 1),
                    );
                    db.insert_events(&[head]).await.expect("insert at the head");
                    k += 1;
                    committed.store(k, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                k
            })
        };
        let mut tasks = Vec::new();
        for _ in 0..WALKS {
            let (client, base, committed) =
                (client.clone(), server.base.clone(), committed.clone());
            tasks.push(tokio::spawn(async move {
                let at_start = committed.load(Ordering::SeqCst);
                let mut ids = Vec::new();
                let mut latencies = Vec::new();
                let mut path = format!("/workspaces/WL/events?page_size={PAGE_SIZE}");
                loop {
                    let t = Instant::now();
                    let answer = get(&client, &base, &path, Some("member-load")).await;
                    latencies.push(t.elapsed());
                    assert!(answer.status < 500, "a 5xx: {}", answer.body);
                    let page = answer.page();
                    ids.extend(page.items.into_iter().map(|e| e.id));
                    match page.next_cursor {
                        Some(token) => path = format!("/workspaces/WL/events?cursor={token}"),
                        None => break,
                    }
                }
                (at_start, ids, latencies)
            }));
        }
        let mut walks = Vec::new();
        for task in tasks {
            walks.push(task.await.expect("walk"));
        }
        done.store(true, Ordering::SeqCst);
        (walks, writer.await.expect("writer"))
    });
    let elapsed = started.elapsed();
    let base_ids: Vec<String> = rows.iter().map(|r| r.event_id.clone()).collect();
    let mut latencies = Vec::new();
    for (n, (at_start, ids, times)) in walks.into_iter().enumerate() {
        // Head rows come first, newest first (each earlier than the one before); the rows of
        // the load follow, all of them, in order.
        let (head, body) = ids.split_at(ids.len() - ROWS.min(ids.len()));
        assert_eq!(
            body,
            &base_ids[..],
            "walk {n}: the 10,000 rows, once, in order"
        );
        let ks: Vec<usize> = head
            .iter()
            .map(|id| {
                id.strip_prefix('H')
                    .and_then(|k| k.parse().ok())
                    .expect("a head row")
            })
            .collect();
        assert!(
            ks.windows(2).all(|w| w[0] > w[1]),
            "walk {n}: head rows in order, once"
        );
        // Every head row that existed when the walk started is there.
        let expected_head: Vec<usize> = (0..at_start).rev().collect();
        assert!(
            ks.ends_with(&expected_head),
            "walk {n}: head rows {ks:?} miss some of the {at_start} that existed at its start"
        );
        latencies.extend(times);
    }
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    eprintln!(
        "feed_server concurrent walks ({}): {WALKS} walks of {ROWS} rows at page size \
         {PAGE_SIZE}, {written} rows inserted at the head meanwhile; {} pages in {:.2} s = \
         {:.0} pages/s; page latency p50 {:.2} ms, p99 {:.2} ms",
        std::any::type_name::<B>(),
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
    );
}
