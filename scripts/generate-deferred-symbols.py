#!/usr/bin/env python3
"""Writes two files of Sources/CDeferredLibraries for the libraries Cyanotype loads on first use
(dlopen):

- symbols.generated.h: for each library, the functions the sources call in it. The list is
  every identifier in Sources/ (Swift and C, outside CDeferredLibraries) that the library
  exports as a function, found with `nm -D --defined-only` on the installed library, so a new
  call is picked up by running this script again. A call missing from the list fails the link
  ("undefined reference"), never at run time.
- forwarders.generated.c: each of those functions defined under its own (hidden) symbol as a
  plain C function with the header's prototype, read from clang's AST of the headers that
  forwarding.h includes. It calls through the function's slot, loading the library first if a
  caller skipped cy_library_load; if the library cannot be loaded it returns the value that
  means failure for that function (FAILURE below), so the process never stops there.

Usage: python3 scripts/generate-deferred-symbols.py [--check]
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "Sources", "CDeferredLibraries")
OUT = os.path.join(FOLDER, "symbols.generated.h")
FORWARDERS = os.path.join(FOLDER, "forwarders.generated.c")

# What a function returns when its library cannot be loaded: by (library, return type), with
# the exceptions by name first. Pointers return NULL and void functions nothing; any other
# return type must be decided here (the script stops on one it does not know), because a zero
# can mean success (FFmpeg's 0, libjxl's JXL_DEC_SUCCESS, libheif's heif_error_Ok) or, for
# CRYPTO_memcmp, "equal".
# Variadic functions cannot pass their extra arguments on; these are called with none (the
# fixed arguments are forwarded), and the script stops on any other variadic function.
VARIADIC_CALLED_WITHOUT_EXTRAS = {
    "MHD_get_connection_info",  # the info types Cyanotype asks for (the socket) take no extra argument
}
FAILURE_BY_NAME = {
    "CRYPTO_memcmp": "1",
    "av_display_rotation_get": "NAN",
    "libraw_cameraCount": "0",
}
FAILURE = {
    ("AVUTIL", "int"): "AVERROR(ENOSYS)",
    ("AVCODEC", "int"): "AVERROR(ENOSYS)",
    ("AVFORMAT", "int"): "AVERROR(ENOSYS)",
    ("SWSCALE", "int"): "AVERROR(ENOSYS)",
    ("CRYPTO", "int"): "0",
    ("HEIF", "int"): "0",
    ("HEIF", "size_t"): "0",
    ("HEIF", "struct heif_error"):
        '(struct heif_error){heif_error_Plugin_loading_error, heif_suberror_Unspecified, "libheif could not be loaded"}',
    ("JXL", "JxlDecoderStatus"): "JXL_DEC_ERROR",
    ("JXL", "JxlEncoderStatus"): "JXL_ENC_ERROR",
    ("JXL", "JxlEncoderError"): "JXL_ENC_ERR_GENERIC",
    ("JXL", "size_t"): "0",
    ("JXL_THREADS", "JxlParallelRetCode"): "JXL_PARALLEL_RET_RUNNER_ERROR",
    ("MICROHTTPD", "MHD_socket"): "MHD_INVALID_SOCKET",
    ("MICROHTTPD", "enum MHD_Result"): "MHD_NO",
    ("MICROHTTPD", "int"): "-1",
    ("ZBAR", "int"): "-1",
    ("ZBAR", "unsigned int"): "0",
    ("ZBAR", "zbar_symbol_type_t"): "ZBAR_NONE",
    ("RAW", "int"): "LIBRAW_UNSPECIFIED_ERROR",
}

# (X-macro name, library file to read exports from); the order is CDeferredLibraries.h's enum.
LIBRARIES = [
    ("HEIF", "libheif.so"),
    ("JXL", "libjxl.so"),
    ("JXL_THREADS", "libjxl_threads.so"),
    ("AVUTIL", "libavutil.so"),
    ("AVCODEC", "libavcodec.so"),
    ("AVFORMAT", "libavformat.so"),
    ("SWSCALE", "libswscale.so"),
    ("MICROHTTPD", "libmicrohttpd.so"),
    ("CRYPTO", "libcrypto.so"),
    ("ZBAR", "libzbar.so"),
    ("RAW", "libraw_r.so"),
]
LIBDIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]


def exports(name):
    for d in LIBDIRS:
        path = os.path.join(d, name)
        if os.path.exists(path):
            out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
            return {line.split()[-1].split("@")[0] for line in out.splitlines() if re.search(r"\s[TW]\s", line)}
    sys.exit(f"generate-deferred-symbols: {name} not found (install the -dev packages: scripts/setup.sh)")


def without_string_text(code):
    """The code with the text of string literals blanked, keeping Swift's interpolations
    (`"error \\(JxlEncoderGetError(enc))"` calls the function)."""
    out = []
    i, n = 0, len(code)
    in_string = False
    while i < n:
        c = code[i]
        if not in_string:
            if c == '"':
                in_string = True
            out.append(c)
            i += 1
        elif c == "\\" and i + 1 < n and code[i + 1] == "(":
            depth, j = 1, i + 2
            while j < n and depth:
                depth += {"(": 1, ")": -1}.get(code[j], 0)
                j += 1
            out.append(" " + code[i + 2 : j - 1] + " ")
            i = j
        elif c == "\\":
            i += 2
        elif c == '"' or c == "\n":
            in_string = False
            out.append(c)
            i += 1
        else:
            i += 1
    return "".join(out)


def identifiers():
    found = set()
    for base, dirs, files in os.walk(os.path.join(ROOT, "Sources")):
        if "CDeferredLibraries" in base:
            continue
        for f in files:
            if f.endswith((".swift", ".c", ".h")):
                with open(os.path.join(base, f), encoding="utf-8") as text:
                    # Comments and messages name functions too ("HMAC-SHA256"); only code counts.
                    code = re.sub(r"/\*.*?\*/", " ", text.read(), flags=re.S)
                    code = re.sub(r"//[^\n]*", " ", code)
                    code = without_string_text(code)
                    found.update(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", code))
    return found


def prototypes(names):
    """name -> (return type, [parameter types], variadic) from clang's AST of forwarding.h."""
    clang = os.environ.get("CC_FOR_AST", "clang")
    out = subprocess.run(
        [clang, "-x", "c", "-fsyntax-only", "-I", os.path.join(FOLDER, "include"), "-Xclang", "-ast-dump=json",
         os.path.join(FOLDER, "forwarding.h")],
        capture_output=True, text=True, check=True).stdout
    found = {}
    for decl in json.loads(out)["inner"]:
        if decl.get("kind") != "FunctionDecl" or decl.get("name") not in names or decl["name"] in found:
            continue
        function_type = decl["type"]["qualType"]
        result = function_type[: function_type.index("(")].strip()
        if result.endswith("(*") or ")" in result:
            sys.exit(f"generate-deferred-symbols: {decl['name']} returns a function pointer; give it a typedef")
        # A va_list parameter reads as its x86_64 decay (struct __va_list_tag *): spell it va_list.
        parameters = ["va_list" if "__va_list_tag" in p["type"]["qualType"] else p["type"]["qualType"]
                      for p in decl.get("inner", []) if p["kind"] == "ParmVarDecl"]
        found[decl["name"]] = (result, parameters, bool(decl.get("variadic")))
    return found


def declarator(type_text, name):
    """`type name`, spelt through __typeof__ where the type is not a plain prefix (arrays,
    pointers to functions)."""
    if "(" in type_text or "[" in type_text:
        return f"__typeof__({type_text}) {name}"
    return f"{type_text}{name}" if type_text.endswith("*") else f"{type_text} {name}"


def forwarders(libraries):
    """The text of forwarders.generated.c for [(macro, [names])]."""
    names = {n for _, ns in libraries for n in ns}
    found = prototypes(names)
    missing = sorted(names - set(found))
    if missing:
        sys.exit(f"generate-deferred-symbols: no prototype in forwarding.h's headers for {', '.join(missing)}")
    lines = [
        "// Generated by scripts/generate-deferred-symbols.py: do not edit.",
        "// Each function Cyanotype calls in a deferred library, under its own hidden symbol: a C",
        "// function with the header's prototype that calls through the function's slot (filled when",
        "// the library loads), or returns what means failure when it cannot be loaded.",
        '#include "forwarding.h"',
        "",
        "#define CY_FORWARDER __attribute__((visibility(\"hidden\")))",
        "",
    ]
    for macro, names_of_library in libraries:
        for name in names_of_library:
            result, parameters, variadic = found[name]
            if variadic and name not in VARIADIC_CALLED_WITHOUT_EXTRAS:
                sys.exit(f"generate-deferred-symbols: {name} is variadic; call its va_list form instead")
            if parameters == ["void"]:
                parameters = []
            signature = ", ".join(declarator(t, f"a{i}") for i, t in enumerate(parameters)) or "void"
            if variadic:
                signature += ", ..."
            arguments = ", ".join(f"a{i}" for i in range(len(parameters)))
            local = f"cy_forward_{name}"
            lines.append(f"CY_FORWARDER {declarator(result, local)}({signature}) __asm__(\"{name}\");")
            lines.append(f"CY_FORWARDER {declarator(result, local)}({signature}) {{")
            lines.append(f"    __typeof__(&{name}) function = cy_deferred_function(CY_LIBRARY_{macro}, &cy_slot_{name});")
            if result == "void":
                lines.append(f"    if (function != NULL) function({arguments});")
            else:
                if result.endswith("*"):
                    failure = "NULL"
                else:
                    failure = FAILURE_BY_NAME.get(name) or FAILURE.get((macro, result))
                    if failure is None:
                        sys.exit(f"generate-deferred-symbols: decide what {name} ({macro}, returning {result}) "
                                 "returns when its library cannot be loaded (FAILURE)")
                lines.append(f"    return function != NULL ? function({arguments}) : {failure};")
            lines.append("}")
        lines.append("")
    lines.append("#define CY_DEFINE_SLOT(name) CY_FORWARDER void *cy_slot_##name = NULL;")
    lines.append("CY_ALL_FUNCTIONS(CY_DEFINE_SLOT)")
    lines.append("")
    return "\n".join(lines)


def main():
    used = identifiers()
    taken = set()
    by_library = []
    lines = [
        "// Generated by scripts/generate-deferred-symbols.py: do not edit.",
        "// For each deferred library, X(function) for every function Cyanotype calls in it.",
        "",
    ]
    for macro, lib in LIBRARIES:
        names = sorted((exports(lib) & used) - taken)
        taken.update(names)
        by_library.append((macro, names))
        lines.append(f"#define CY_{macro}_FUNCTIONS(X) \\")
        lines.extend(f"    X({n}) \\" for n in names)
        lines.append("")
    outputs = {OUT: "\n".join(lines), FORWARDERS: forwarders(by_library)}
    for path, text in outputs.items():
        if "--check" in sys.argv:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    sys.exit(f"{os.path.basename(path)} is stale: run python3 scripts/generate-deferred-symbols.py")
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


main()
