//! Starts the hot text section (`.text.hot.ringbus`, see "Code placement" in the crate
//! root) on a page boundary. The take path is about 7.5 KiB: aligned it spans 2 pages,
//! where it straddled 3. Costs at most a page of padding in the binary.
//!
//! An assembler directive and nothing else: no code, no symbol. x86-64 only (the section
//! type is spelled differently elsewhere), and not under Miri, which runs no assembly.

#[cfg(all(target_arch = "x86_64", not(miri)))]
std::arch::global_asm!(".pushsection .text.hot.ringbus,\"ax\",@progbits", ".balign 4096", ".popsection");
