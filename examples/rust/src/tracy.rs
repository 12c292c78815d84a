//! Hand-written declarations of the part of tracyc's C ABI (include/tracyc.h, Tracy
//! 0.14.0's TracyC.h) this example uses, and a zone guard on top of them.
use std::ffi::CStr;
use std::os::raw::c_char;
use std::marker::PhantomData;

/// `struct ___tracy_source_location_data`: must live as long as the process, as the
/// server asks for its strings by address, so it is always a `static`.
#[repr(C)]
pub struct SourceLocation {
    pub name: *const c_char,
    pub function: *const c_char,
    pub file: *const c_char,
    pub line: u32,
    pub color: u32,
}

// Only ever built from string literals and never written: safe to share.
unsafe impl Sync for SourceLocation {}

/// `TracyCZoneCtx`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ZoneContext {
    pub id: u32,
    pub active: i32,
}

extern "C" {
    pub fn ___tracy_emit_zone_begin(srcloc: *const SourceLocation, active: i32) -> ZoneContext;
    pub fn ___tracy_emit_zone_begin_alloc(srcloc: u64, active: i32) -> ZoneContext;
    pub fn ___tracy_emit_zone_end(ctx: ZoneContext);
    pub fn ___tracy_emit_zone_value(ctx: ZoneContext, value: u64);
    pub fn ___tracy_alloc_srcloc_name(
        line: u32,
        source: *const c_char,
        source_sz: usize,
        function: *const c_char,
        function_sz: usize,
        name: *const c_char,
        name_sz: usize,
        color: u32,
    ) -> u64;
    pub fn ___tracy_set_thread_name(name: *const c_char);
    pub fn ___tracy_emit_plot_int(name: *const c_char, val: i64);
    pub fn ___tracy_emit_logString(severity: i8, color: i32, callstack_depth: i32, size: usize, txt: *const c_char);
    pub fn ___tracy_emit_frame_mark(name: *const c_char);
}

/// An open zone; it ends when dropped. Not `Send`: a zone must end on its own thread.
pub struct Zone {
    ctx: ZoneContext,
    _not_send: PhantomData<*const ()>,
}

impl Zone {
    pub fn begin(srcloc: &'static SourceLocation) -> Zone {
        Zone { ctx: unsafe { ___tracy_emit_zone_begin(srcloc, 1) }, _not_send: PhantomData }
    }

    /// A zone whose name is only known at run time (the library copies the strings).
    pub fn begin_named(name: &str, function: &str, file: &str, line: u32) -> Zone {
        let ctx = unsafe {
            let srcloc = ___tracy_alloc_srcloc_name(
                line,
                file.as_ptr().cast(),
                file.len(),
                function.as_ptr().cast(),
                function.len(),
                name.as_ptr().cast(),
                name.len(),
                0,
            );
            ___tracy_emit_zone_begin_alloc(srcloc, 1)
        };
        Zone { ctx, _not_send: PhantomData }
    }

    pub fn value(&self, value: u64) {
        unsafe { ___tracy_emit_zone_value(self.ctx, value) }
    }
}

impl Drop for Zone {
    fn drop(&mut self) {
        unsafe { ___tracy_emit_zone_end(self.ctx) }
    }
}

/// `cstr!("text")`: a `&'static CStr` from a literal (also on compilers older than `c"..."`,
/// such as Debian's).
#[macro_export]
macro_rules! cstr {
    ($text:literal) => {
        std::ffi::CStr::from_bytes_with_nul(concat!($text, "\0").as_bytes()).unwrap()
    };
}

/// `zone!("name")` opens a zone at a static source location for the rest of the scope.
#[macro_export]
macro_rules! zone {
    ($name:literal) => {{
        static LOC: $crate::tracy::SourceLocation = $crate::tracy::SourceLocation {
            name: concat!($name, "\0").as_ptr().cast(),
            function: concat!(module_path!(), "\0").as_ptr().cast(),
            file: concat!(file!(), "\0").as_ptr().cast(),
            line: line!(),
            color: 0,
        };
        $crate::tracy::Zone::begin(&LOC)
    }};
}

pub fn set_thread_name(name: &CStr) {
    unsafe { ___tracy_set_thread_name(name.as_ptr()) }
}

/// Plot names are identified by address: pass a `'static` C string.
pub fn plot(name: &'static CStr, value: i64) {
    unsafe { ___tracy_emit_plot_int(name.as_ptr(), value) }
}

pub fn message(text: &str) {
    const INFO: i8 = 2;
    unsafe { ___tracy_emit_logString(INFO, 0, 0, text.len(), text.as_ptr().cast()) }
}

pub fn frame_mark() {
    unsafe { ___tracy_emit_frame_mark(std::ptr::null()) }
}
