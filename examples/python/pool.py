"""A process pool: the parent splits the work, two spawned workers count primes.
`python3 -m tracer` follows the workers: each is a process of the same profile."""
import multiprocessing


def is_prime(n):
    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def count_primes(chunk):
    start, stop = chunk
    return sum(1 for n in range(start, stop) if is_prime(n))


def chunks(limit, size):
    return [(start, min(start + size, limit)) for start in range(0, limit, size)]


def main():
    pool = multiprocessing.get_context("spawn").Pool(2)
    total = sum(pool.map(count_primes, chunks(200_000, 25_000)))
    pool.close()  # the workers finish and exit (terminate() would kill them, and their profiles)
    pool.join()
    print(f"{total} primes below 200000")


if __name__ == "__main__":
    main()
