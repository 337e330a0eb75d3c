//! The `.npy` and `.npz` readers: any bytes give a tensor or an error, never a panic or an
//! allocation larger than the input justifies.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = pyjit_runtime::npy::read_npy_bytes(data) {
        // What was read writes back and reads again to the same tensor.
        let bytes = pyjit_runtime::npy::write_npy_bytes(&t).expect("writes");
        let back = pyjit_runtime::npy::read_npy_bytes(&bytes).expect("reads back");
        assert_eq!(format!("{back:?}"), format!("{t:?}"));
    }
    let _ = pyjit_runtime::npy::read_npz_bytes(data);
});
