/*
 * sidetable.h -- what the pass records about each function it instruments, and the
 * record it leaves in the object file (see sidetable.cpp and docs/compiler-pass.md).
 */
#ifndef SHIM_PASS_SIDETABLE_H
#define SHIM_PASS_SIDETABLE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "signals/pass/numbering.h"

namespace llvm
{
class StringRef;
class DILocation;
class Function;
class Module;
} // namespace llvm

namespace shimpass
{

/* The bytes "SHIPAS01" read as a little-endian 64-bit word: the first field of every
 * record, so a reader can tell records from padding or foreign data. */
constexpr uint64_t kSideTableMagic = 0x3130534150494853ull;
constexpr const char *kSideTableSection = "shim_sidetable";

/* A source file and line; file empty when unknown (written as null). */
struct SourcePlace {
    std::string file;
    unsigned line = 0;
};

struct LoopRecord {
    unsigned number; /* 1-based, preorder of the loop nest */
    unsigned parent; /* enclosing loop's number, 0 for an outermost loop */
    unsigned depth;  /* 1 for an outermost loop */
    int header;      /* block index of the loop header */
    SourcePlace place;
};

struct BlockRecord {
    std::string name;
    std::string file;            /* empty: no located instruction */
    std::vector<unsigned> lines; /* distinct, in order of first appearance */
};

/* Everything the table says about one function. The blocks, loops and numbering
 * describe the function as it was before the pass split any edge. */
struct FunctionRecord {
    std::string name;
    SourcePlace place;
    uint64_t paths = 0;   /* NP(ENTRY); 0 when the path signal is off or fell back */
    std::string fallback; /* why paths are not numbered; empty: they are (or are off) */
    std::vector<LoopRecord> loops;
    std::vector<BlockRecord> blocks;
    const Numbering *numbering = nullptr;   /* its edges are listed when paths > 0 */
    std::vector<std::pair<int, int>> split; /* edges that got a block of their own */
};

/* A debug file name, made absolute with its directory when the directory is. */
std::string sourceFile(llvm::StringRef dir, llvm::StringRef file);

/* The file and line of a debug location ("" and 0 for none). */
SourcePlace placeOf(const llvm::DILocation *loc);

/* The records of a function's blocks: names, and the lines of the function's own
 * source that each block's instructions come from (an instruction inlined from
 * elsewhere counts as the line of the call it was inlined at, in this function). */
std::vector<BlockRecord> blockRecords(llvm::Function &f);

std::string sideTableJson(const FunctionRecord &r);

/* Adds the function's record, { magic, function, JSON text, length }, to the module's
 * shim_sidetable section, kept by llvm.used. */
void emitSideTable(llvm::Module &m, llvm::Function &f, const std::string &json);

} // namespace shimpass

#endif
