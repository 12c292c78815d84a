//! Links libtracyc.so. TRACYC_LIB_DIR names the directory that holds it (a CMake build
//! directory or an install's lib/); without it the system's library search path is used.
use std::env;

fn main() {
    println!("cargo:rerun-if-env-changed=TRACYC_LIB_DIR");
    if let Ok(dir) = env::var("TRACYC_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
        // Lets the binary find the library at run time without LD_LIBRARY_PATH.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    println!("cargo:rustc-link-lib=dylib=tracyc");
}
