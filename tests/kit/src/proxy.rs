//! A TCP proxy run in the test process between a client and the database server, which a test
//! can cut: [`Proxy::down`] drops every connection through it and refuses new ones until
//! [`Proxy::up`], as a server restart does, without touching the shared server that other
//! tests use at the same time; [`Proxy::cut_after`] cuts the connections in the middle of the
//! next server response, after a given number of bytes.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

struct State {
    upstream: String,
    up: AtomicBool,
    stop: AtomicBool,
    /// Bytes the server may still send to clients before every connection is cut; -1: no cut.
    cut_after: AtomicI64,
    /// Bytes sent from the server to clients so far.
    downstream_bytes: AtomicU64,
    /// Both sockets of each open connection.
    open: Mutex<Vec<(TcpStream, TcpStream)>>,
}

impl State {
    fn cut_all(&self) {
        for (client, server) in self.open.lock().expect("proxy").drain(..) {
            let _ = client.shutdown(Shutdown::Both);
            let _ = server.shutdown(Shutdown::Both);
        }
    }
}

/// A proxy listening on a free local port and forwarding to `upstream` (`host:port`).
pub struct Proxy {
    addr: SocketAddr,
    state: Arc<State>,
    accept: Option<JoinHandle<()>>,
}

impl Proxy {
    /// Starts a proxy to `upstream`.
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let addr = listener.local_addr().expect("proxy address");
        let state = Arc::new(State {
            upstream: upstream.to_string(),
            up: AtomicBool::new(true),
            stop: AtomicBool::new(false),
            cut_after: AtomicI64::new(-1),
            downstream_bytes: AtomicU64::new(0),
            open: Mutex::new(Vec::new()),
        });
        let st = state.clone();
        let accept = std::thread::spawn(move || {
            for client in listener.incoming() {
                if st.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                if !st.up.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&st.upstream) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let pair = (
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                st.open.lock().expect("proxy").push(pair);
                let (c2, s2) = (
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                std::thread::spawn(move || pump(c2, s2, None));
                let st2 = st.clone();
                std::thread::spawn(move || pump(server, client, Some(st2)));
            }
        });
        Proxy {
            addr,
            state,
            accept: Some(accept),
        }
    }

    /// The proxy's `host:port`.
    pub fn addr(&self) -> String {
        self.addr.to_string()
    }

    /// `url` with its `host:port` (between `@` and the next `/`) replaced by the proxy's.
    pub fn url_through(&self, url: &str) -> String {
        let at = url.find('@').expect("a URL with user@host") + 1;
        let end = url[at..].find('/').map_or(url.len(), |i| at + i);
        format!("{}{}{}", &url[..at], self.addr(), &url[end..])
    }

    /// The server "goes away": every open connection is cut, new ones are refused.
    pub fn down(&self) {
        self.state.up.store(false, Ordering::SeqCst);
        self.state.cut_all();
    }

    /// The server is back: new connections are forwarded again.
    pub fn up(&self) {
        self.state.up.store(true, Ordering::SeqCst);
    }

    /// Cuts every connection once the server has sent `bytes` more bytes to the clients (the
    /// rest of that read is not forwarded).
    pub fn cut_after(&self, bytes: u64) {
        self.state
            .cut_after
            .store(i64::try_from(bytes).expect("byte count"), Ordering::SeqCst);
    }

    /// Bytes the server sent to clients through the proxy so far.
    pub fn downstream_bytes(&self) -> u64 {
        self.state.downstream_bytes.load(Ordering::SeqCst)
    }
}

/// `host:port` of a database URL (between `@` and the next `/`).
pub fn url_host_port(url: &str) -> String {
    let at = url.find('@').expect("a URL with user@host") + 1;
    let end = url[at..].find('/').map_or(url.len(), |i| at + i);
    url[at..end].to_string()
}

/// Copies `from` to `to` until either closes; `state` is set for the server-to-client side,
/// which counts bytes and honours [`Proxy::cut_after`].
fn pump(mut from: TcpStream, mut to: TcpStream, state: Option<Arc<State>>) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut send = n;
        let mut cut = false;
        if let Some(st) = &state {
            let budget = st.cut_after.load(Ordering::SeqCst);
            if budget >= 0 {
                let budget = usize::try_from(budget).unwrap_or(usize::MAX);
                if n >= budget {
                    send = budget;
                    cut = true;
                    st.cut_after.store(-1, Ordering::SeqCst);
                } else {
                    st.cut_after.fetch_sub(n as i64, Ordering::SeqCst);
                }
            }
            st.downstream_bytes.fetch_add(send as u64, Ordering::SeqCst);
        }
        if to.write_all(&buf[..send]).is_err() {
            break;
        }
        if cut {
            let _ = to.flush();
            if let Some(st) = &state {
                st.cut_all();
            }
            break;
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        self.state.cut_all();
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}
