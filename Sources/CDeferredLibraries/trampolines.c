// Each deferred function, defined under its own name as one jump through its slot. A slot
// starts out pointing at the function's resolver, which keeps the caller's argument registers,
// loads the library (cy_library_bind_or_stop, which fills every slot of it), and jumps through
// the slot again; after that a call costs one indirect jump. The symbols are hidden: callers in
// Cyanotype link to them, but the loaded libraries never see them in place of their own.
#include "CDeferredLibraries.h"
#include "slots.h"

#define CY_TEXT2(x) #x
#define CY_TEXT(x) CY_TEXT2(x)

// What both architectures' trampolines open with: the function's global, hidden symbol, and
// after its one jump, the resolver's local label.
#define CY_FUNCTION_START(name) \
    ".text\n"                  \
    ".globl " #name "\n"       \
    ".hidden " #name "\n"      \
    ".type " #name ", %function\n" \
    ".p2align 4\n" #name ":\n"
#define CY_RESOLVER_START(name)           \
    ".size " #name ", . - " #name "\n"   \
    ".p2align 4\n"                       \
    "cy_resolve_" #name ":\n"

#if defined(__x86_64__)
#define CY_JUMP_THROUGH_SLOT(name) "    jmp *cy_slot_" #name "(%rip)\n"
// Resolver: entered with the stack as the caller left it (8 mod 16); seven pushes and 128 bytes
// of vector registers make it 16-byte aligned for the call. Saved: the six integer argument
// registers, %rax (the vector-register count of a variadic call) and %xmm0-7.
#define CY_TRAMPOLINE_CODE(library, name)                                        \
    CY_FUNCTION_START(name)                                                      \
    CY_JUMP_THROUGH_SLOT(name)                                         \
    CY_RESOLVER_START(name)                                                      \
    "    push %rdi\n    push %rsi\n    push %rdx\n    push %rcx\n"               \
    "    push %r8\n    push %r9\n    push %rax\n"                                \
    "    sub $128, %rsp\n"                                                       \
    "    movdqu %xmm0, 0(%rsp)\n    movdqu %xmm1, 16(%rsp)\n"                    \
    "    movdqu %xmm2, 32(%rsp)\n    movdqu %xmm3, 48(%rsp)\n"                   \
    "    movdqu %xmm4, 64(%rsp)\n    movdqu %xmm5, 80(%rsp)\n"                   \
    "    movdqu %xmm6, 96(%rsp)\n    movdqu %xmm7, 112(%rsp)\n"                  \
    "    mov $" CY_TEXT(library) ", %edi\n"                                      \
    "    call cy_library_bind_or_stop\n"                                         \
    "    movdqu 0(%rsp), %xmm0\n    movdqu 16(%rsp), %xmm1\n"                    \
    "    movdqu 32(%rsp), %xmm2\n    movdqu 48(%rsp), %xmm3\n"                   \
    "    movdqu 64(%rsp), %xmm4\n    movdqu 80(%rsp), %xmm5\n"                   \
    "    movdqu 96(%rsp), %xmm6\n    movdqu 112(%rsp), %xmm7\n"                  \
    "    add $128, %rsp\n"                                                       \
    "    pop %rax\n    pop %r9\n    pop %r8\n    pop %rcx\n"                     \
    "    pop %rdx\n    pop %rsi\n    pop %rdi\n"                                 \
    CY_JUMP_THROUGH_SLOT(name)
#elif defined(__aarch64__)
#define CY_JUMP_THROUGH_SLOT(name)                   \
    "    adrp x16, cy_slot_" #name "\n"              \
    "    ldr x16, [x16, :lo12:cy_slot_" #name "]\n"  \
    "    br x16\n"
// Resolver: saves the link register and frame pointer, x0-x8 (x8: the address of a returned
// struct) and q0-q7, keeping sp 16-byte aligned throughout.
#define CY_TRAMPOLINE_CODE(library, name)                                        \
    CY_FUNCTION_START(name)                                                      \
    CY_JUMP_THROUGH_SLOT(name)                                                               \
    CY_RESOLVER_START(name)                                                      \
    "    stp x29, x30, [sp, #-16]!\n"                                            \
    "    mov x29, sp\n"                                                          \
    "    stp x0, x1, [sp, #-16]!\n    stp x2, x3, [sp, #-16]!\n"                 \
    "    stp x4, x5, [sp, #-16]!\n    stp x6, x7, [sp, #-16]!\n"                 \
    "    stp x8, x9, [sp, #-16]!\n"                                              \
    "    stp q0, q1, [sp, #-32]!\n    stp q2, q3, [sp, #-32]!\n"                 \
    "    stp q4, q5, [sp, #-32]!\n    stp q6, q7, [sp, #-32]!\n"                 \
    "    mov w0, #" CY_TEXT(library) "\n"                                        \
    "    bl cy_library_bind_or_stop\n"                                           \
    "    ldp q6, q7, [sp], #32\n    ldp q4, q5, [sp], #32\n"                     \
    "    ldp q2, q3, [sp], #32\n    ldp q0, q1, [sp], #32\n"                     \
    "    ldp x8, x9, [sp], #16\n"                                                \
    "    ldp x6, x7, [sp], #16\n    ldp x4, x5, [sp], #16\n"                     \
    "    ldp x2, x3, [sp], #16\n    ldp x0, x1, [sp], #16\n"                     \
    "    ldp x29, x30, [sp], #16\n"                                              \
    CY_JUMP_THROUGH_SLOT(name)
#else
#error "CDeferredLibraries has trampolines for x86_64 and aarch64; add this architecture's"
#endif

#define CY_TRAMPOLINE(library, name)                                                       \
    extern __attribute__((visibility("hidden"))) char cy_resolve_##name[];                 \
    __attribute__((visibility("hidden"))) void *cy_slot_##name = (void *)cy_resolve_##name; \
    __asm__(CY_TRAMPOLINE_CODE(library, name));

// The numbers in the assembly must be the enum's.
_Static_assert(CY_LIBRARY_HEIF == 0 && CY_LIBRARY_JXL == 1 && CY_LIBRARY_JXL_THREADS == 2 && CY_LIBRARY_AVUTIL == 3
                   && CY_LIBRARY_AVCODEC == 4 && CY_LIBRARY_AVFORMAT == 5 && CY_LIBRARY_SWSCALE == 6
                   && CY_LIBRARY_MICROHTTPD == 7 && CY_LIBRARY_CRYPTO == 8,
               "trampolines.c numbers the libraries as CDeferredLibraries.h does");
#define CY_HEIF(name) CY_TRAMPOLINE(0, name)
#define CY_JXL(name) CY_TRAMPOLINE(1, name)
#define CY_JXL_THREADS(name) CY_TRAMPOLINE(2, name)
#define CY_AVUTIL(name) CY_TRAMPOLINE(3, name)
#define CY_AVCODEC(name) CY_TRAMPOLINE(4, name)
#define CY_AVFORMAT(name) CY_TRAMPOLINE(5, name)
#define CY_SWSCALE(name) CY_TRAMPOLINE(6, name)
#define CY_MICROHTTPD(name) CY_TRAMPOLINE(7, name)
#define CY_CRYPTO(name) CY_TRAMPOLINE(8, name)

CY_HEIF_FUNCTIONS(CY_HEIF)
CY_JXL_FUNCTIONS(CY_JXL)
CY_JXL_THREADS_FUNCTIONS(CY_JXL_THREADS)
CY_AVUTIL_FUNCTIONS(CY_AVUTIL)
CY_AVCODEC_FUNCTIONS(CY_AVCODEC)
CY_AVFORMAT_FUNCTIONS(CY_AVFORMAT)
CY_SWSCALE_FUNCTIONS(CY_SWSCALE)
CY_MICROHTTPD_FUNCTIONS(CY_MICROHTTPD)
CY_CRYPTO_FUNCTIONS(CY_CRYPTO)
