//! A small multi-threaded workload profiled through tracyc: worker threads count primes
//! in chunks, each chunk a zone, with a plot of the running count and a message at the
//! end. Run it with TRACYC_OUTPUT=trace.json to get a trace with no server, or connect
//! the Tracy profiler (TRACY_NO_EXIT=1 makes the program wait for it).
mod tracy;

use std::ffi::CString;
use std::thread;

const THREADS: u64 = 4;
const CHUNKS: u64 = 25;
const CHUNK_SIZE: u64 = 2_000;

fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

fn worker(index: u64) -> u64 {
    let name = CString::new(format!("rust worker {index}")).unwrap();
    tracy::set_thread_name(&name);
    let total = tracy::Zone::begin_named("rust worker total", "worker", file!(), line!());
    let mut found = 0;
    for chunk in 0..CHUNKS {
        let zone = zone!("rust chunk");
        let start = (chunk * THREADS + index) * CHUNK_SIZE;
        let primes = (start..start + CHUNK_SIZE).filter(|&n| is_prime(n)).count() as u64;
        zone.value(primes);
        found += primes;
        tracy::plot(cstr!("rust primes"), found as i64);
    }
    total.value(found);
    found
}

fn main() {
    tracy::set_thread_name(cstr!("rust main"));
    let found: u64 = {
        let _zone = zone!("rust main");
        let workers: Vec<_> = (0..THREADS).map(|i| thread::spawn(move || worker(i))).collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    };
    tracy::message(&format!("rust example done: {found} primes"));
    tracy::frame_mark();
    println!("{found} primes below {}", THREADS * CHUNKS * CHUNK_SIZE);
}
