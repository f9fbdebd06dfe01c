/*
 * shim_pass.cpp -- the clang plugin that makes a program write the method, loop and
 * path signals of signals/path.h by itself, inline, with no call into a runtime.
 *
 *     clang -O2 -g -fpass-plugin=$(pkg-config --variable=passplugin shim) prog.c -lshim
 *
 * It runs once per module at the end of the optimisation pipeline (the OptimizerLast
 * extension point, which LLVM 14 runs at -O0 as well), so it numbers the control flow
 * that will really execute: after inlining, unrolling and CFG simplification. For each
 * function with a body it
 *   - stores shim_loop_stored(function, loop) into slot 10 at entry and after every call
 *     that may have run the program's code returns (libraryLeaf: not after strlen), and
 *     (the loop signal) on every edge that enters or leaves a loop, but not where
 *     another store or the return follows within a few instructions on every
 *     path (dropCoveredLoopStores); the observer takes the function of slot 8 from it
 *     (signals/path.h), so slot 8 is not stored;
 *   - with the context signal, makes the function keep its frame pointer and stores its
 *     frame address into slot 11 beside slot 10 (signals/stackwalk.h: the observer
 *     walks the frame-pointer chain from it);
 *   - numbers the acyclic paths (Ball and Larus; numbering.h), keeps the path sum in a
 *     register, and appends (function, path) to the thread's path ring at every back
 *     edge and return;
 *   - leaves a record of the numbering and the source lines in shim_sidetable
 *     (sidetable.h), from which a path number is turned back into blocks and lines.
 *
 * Each signal is a load of an initial-exec thread-local pointer and a relaxed store,
 * the same two instructions SHIM_SIGNAL compiles to; on x86-64 the loop word's and the
 * frame's are written as assembly that makes every value where it is stored
 * (storeInAssembly: nothing kept in a callee-saved register for them). The path sum
 * lives in an alloca while the pass places its updates on edges, and is then promoted
 * to SSA form, so it costs a register (and an add on the edges that carry a Val).
 *
 * Numbering, side table and placement are all computed on the function as the
 * optimiser left it, before the pass changes anything; only then are edges that need
 * code and are critical split. Settings come from the environment at compile time
 * (SHIM_PASS, SHIM_PASS_MAX_PATHS, SHIM_PASS_VERIFY); a bad value is one line on
 * stderr and the default, never a failed compilation.
 */
#include "signals/pass/llvm_compat.h"
#include "signals/pass/numbering.h"
#include "signals/pass/sidetable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>

/* The run-time layout the generated code writes: the contract with libshim. */
extern "C" {
#include "signals/cct.h"
#include "signals/path.h"
#include "signals/stackwalk.h"
}

using namespace llvm;
using namespace shimpass;

static_assert(offsetof(struct shim_path_ring, head) == 0, "path.h: head at offset 0");
static_assert(offsetof(struct shim_path_ring, entry) == 128, "path.h: entries at offset 128");
static_assert(sizeof(struct shim_path_entry) == 32, "path.h: 32-byte entries");
static_assert((SHIM_PATH_RING & (SHIM_PATH_RING - 1)) == 0, "path.h: ring size a power of 2");

namespace
{

constexpr uint64_t kVerifyLimit = 100000; /* SHIM_PASS_VERIFY enumerates up to this many */
/* Straight-line code this short (instructions, no call) between two stores of one
 * function's loop word counts to one of them: the other is not stored. */
constexpr unsigned kShortCode = 12;
constexpr unsigned kMaxLoopNumber = SHIM_LOOP_MAX;

/* ---- settings ---- */

/* The default: functions, loops and calling contexts. Paths are asked for (SHIM_PASS with
 * path): their ring costs a call-dense program as much again, alone and more observed
 * (docs/compiler-pass.md, "Settings"). */
struct Config {
    bool method = true, loop = true, path = false, context = true;
    bool pcc =
        false; /* the encoded-context prototype: measured, not read (docs/calling-contexts.md) */
    uint64_t maxPaths = 1ull << 32;
    bool verify = false;
    bool any() const { return method || loop || path || context || pcc; }
};

bool parseSignals(const char *text, Config &c)
{
    bool method = false, loop = false, path = false, context = false, pcc = false, none = false;
    StringRef rest(text);
    if (rest.trim().empty()) return false;
    while (!rest.empty()) {
        auto split = rest.split(',');
        StringRef word = split.first.trim();
        rest = split.second;
        if (word == "method")
            method = true;
        else if (word == "loop")
            loop = true;
        else if (word == "path")
            path = true;
        else if (word == "context")
            context = true;
        else if (word == "pcc")
            pcc = true;
        else if (word == "none")
            none = true;
        else
            return false;
    }
    if (none && (method || loop || path || context || pcc)) return false;
    /* a context starts with the function executing, and a path is the function's */
    c.method = method || context || path;
    c.loop = loop;
    c.path = path;
    c.context = context;
    c.pcc = pcc;
    return true;
}

bool parseCount(const char *text, uint64_t &out)
{
    if (!*text || strlen(text) > 19) return false;
    uint64_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v < 1 || v > (uint64_t)INT64_MAX) return false;
    out = v;
    return true;
}

Config readConfig()
{
    Config c;
    if (const char *s = getenv("SHIM_PASS"); s && !parseSignals(s, c)) {
        errs() << "shim-pass: SHIM_PASS=" << s
               << ": expected none or a comma-separated list of method, loop, path, context "
                  "(and pcc, a prototype); using method,loop,context\n";
        c = Config();
    }
    if (const char *s = getenv("SHIM_PASS_MAX_PATHS"); s && !parseCount(s, c.maxPaths)) {
        errs() << "shim-pass: SHIM_PASS_MAX_PATHS=" << s << ": expected an integer from 1 to "
               << INT64_MAX << "; using " << Config().maxPaths << "\n";
        c.maxPaths = Config().maxPaths;
    }
    if (const char *s = getenv("SHIM_PASS_VERIFY")) {
        if (!strcmp(s, "1"))
            c.verify = true;
        else if (strcmp(s, "0"))
            errs() << "shim-pass: SHIM_PASS_VERIFY=" << s << ": expected 0 or 1; using 0\n";
    }
    return c;
}

/* ---- what gets stored: IR for the run-time layout of shim.h and path.h ---- */

class Emitter
{
  public:
    explicit Emitter(Module &m)
        : m(m), i8(Type::getInt8Ty(m.getContext())), i64(Type::getInt64Ty(m.getContext())),
          i8ptr(compat::bytePointer(m.getContext())), asmStores(storesInAssembly(m))
    {
    }

    /* The function and the loop executing now in one word, slot 10: the loop value, or
     * without the loop signal the function outside its loops (fn: the method value), then the frame
     * (slot 11): one load of the block pointer, then one store per word (any value may be null: not
     * stored). Slot 8 is not stored: the observer takes the function from the loop word
     * (signals/path.h), which halves the stores per call. With the frame signal the two are stored
     * in the order stackwalk.h ("read together") needs: entering the function (`entering`), the
     * frame first; after a call returns, the loop word first. The observer reads the two with one
     * 16-byte load, so what it can see between the two stores is the caller's word with the
     * callee's frame, which folds back into the caller's context, never the reverse. The second
     * store is a release, so the compiler keeps the order (on x86-64 both are plain movs). */
    void storeSignals(IRBuilder<> &b, Value *method, Value *loop, Value *frame, bool entering)
    {
        Value *word = loop ? loop : method;
        if (!word && !frame) return;
        /* the entry's frame store stays IR: its use of the frame address keeps the
         * prologue that makes %rbp the function's frame above it, which shrink-wrapping
         * would otherwise move down past an %rbp the code generator cannot see in the
         * assembly (the caller's frame published with the callee's word); after a call,
         * the prologue has run */
        if (asmStores && word && !(entering && frame) &&
            storeInAssembly(b, word, frame != nullptr, entering))
            return;
        Value *block = b.CreateAlignedLoad(i8ptr, tlsPointer("shim_tls_block"), Align(8));
        if (frame && word) {
            Value *first = entering ? frame : word, *second = entering ? word : frame;
            unsigned a = entering ? SHIM_SLOT_FRAME : SHIM_SLOT_LOOP,
                     z = entering ? SHIM_SLOT_LOOP : SHIM_SLOT_FRAME;
            storeWord(b, block, tagOffset(a), first, AtomicOrdering::Monotonic);
            storeWord(b, block, tagOffset(z), second, AtomicOrdering::Release);
            return;
        }
        if (frame)
            storeWord(b, block, tagOffset(SHIM_SLOT_FRAME), frame, AtomicOrdering::Monotonic);
        if (word) storeWord(b, block, tagOffset(SHIM_SLOT_LOOP), word, AtomicOrdering::Monotonic);
    }

    /* The stores of storeSignals as one piece of x86-64 assembly that makes every value
     * where it stores it: the block pointer through the thread-local pointer's GOT entry,
     * the loop word with a RIP-relative lea (and its top bits, for a loop from 16 on,
     * with a movabs and an add), the frame from %rbp (the pass makes the function keep
     * its frame pointer), in the order of the IR stores below, with scratch registers
     * that a call clobbers anyway. As IR, the same stores give the code generator the
     * block pointer's offset and the loop word as values it keeps in callee-saved
     * registers across the function's calls, pushed and popped at every call of the
     * function: on Lua 0.97 of the time with method,loop and 0.96 with
     * method,loop,context (docs/compiler-pass.md). The assembly names the memory it
     * writes to no one, as a relaxed store to a block only the observer reads needs;
     * volatile, it stays between the calls it was put between. false, storing nothing,
     * for a word that is not a function's address plus a constant. */
    bool storeInAssembly(IRBuilder<> &b, Value *word, bool frame, bool entering)
    {
        auto *ce = dyn_cast<ConstantExpr>(word);
        uint64_t top = 0;
        if (ce && ce->getOpcode() == Instruction::Add) {
            auto *c = dyn_cast<ConstantInt>(ce->getOperand(1));
            if (!c) return false;
            top = c->getZExtValue();
            ce = dyn_cast<ConstantExpr>(ce->getOperand(0));
        }
        if (!ce || ce->getOpcode() != Instruction::PtrToInt) return false;
        /* a RIP-relative lea needs the function in this object: not one that another
         * object may take the place of (default visibility in a shared library), whose
         * address is loaded from the GOT */
        auto *fn = dyn_cast<GlobalValue>(ce->getOperand(0)->stripPointerCasts());
        if (auto *gep = dyn_cast<GEPOperator>(ce->getOperand(0)))
            fn = dyn_cast<GlobalValue>(gep->getPointerOperand()->stripPointerCasts());
        if (!fn || !(fn->isDSOLocal() || fn->hasLocalLinkage())) return false;
        std::string w = "leaq ${0:P}(%rip), %rcx\n\t";
        if (top) w += "movabsq $$" + std::to_string(top) + ", %rdx\n\taddq %rdx, %rcx\n\t";
        w += "movq %rcx, " + std::to_string(tagOffset(SHIM_SLOT_LOOP)) + "(%rax)\n\t";
        std::string fr =
            frame ? "movq %rbp, " + std::to_string(tagOffset(SHIM_SLOT_FRAME)) + "(%rax)\n\t" : "";
        std::string text = "movq shim_tls_block@GOTTPOFF(%rip), %rax\n\t"
                           "movq %fs:(%rax), %rax\n\t" +
                           (entering ? fr + w : w + fr);
        Constant *at = ce->getOperand(0);
        FunctionType *ft =
            FunctionType::get(Type::getVoidTy(m.getContext()), {at->getType()}, false);
        std::string clobbers = "i,~{rax},~{rcx}";
        if (top) clobbers += ",~{rdx}";
        clobbers += ",~{dirflag},~{fpsr},~{flags}";
        b.CreateCall(ft, InlineAsm::get(ft, text, clobbers, /*hasSideEffects=*/true), {at});
        return true;
    }

    /* Whether storeSignals writes assembly (storeInAssembly): for x86-64 Linux (ELF, TLS
     * through %fs, not Android's emulated TLS) with 64-bit pointers and a code model in
     * which code and data are within 2 GiB of each other (RIP-relative addresses);
     * elsewhere the IR stores. */
    static bool storesInAssembly(const Module &m)
    {
        Triple t(m.getTargetTriple());
        auto cm = m.getCodeModel();
        return t.getArch() == Triple::x86_64 && t.isOSLinux() && !t.isAndroid() &&
               t.isOSBinFormatELF() && t.getEnvironment() != Triple::GNUX32 &&
               m.getDataLayout().getPointerSize() == 8 &&
               !(cm && (*cm == CodeModel::Large || *cm == CodeModel::Kernel));
    }

    /* The probabilistic calling context of Bond and McKinley (OOPSLA 2007) around one
     * call: V' = 3 V + site before it, V again after it returns, V kept in slot 12 of
     * the thread's block. A prototype to measure what an encoded context costs per call
     * against the frame signal; nothing reads or decodes it. */
    void pccAround(CallBase *call, uint64_t site)
    {
        IRBuilder<> b(call);
        Value *block = b.CreateAlignedLoad(i8ptr, tlsPointer("shim_tls_block"), Align(8));
        Value *slot = wordPtr(b, block, tagOffset(kPccSlot));
        LoadInst *v = b.CreateAlignedLoad(i64, slot, Align(8));
        v->setAtomic(AtomicOrdering::Monotonic);
        Value *nv =
            b.CreateAdd(b.CreateMul(v, ConstantInt::get(i64, 3)), ConstantInt::get(i64, site));
        b.CreateAlignedStore(nv, slot, Align(8))->setAtomic(AtomicOrdering::Monotonic);
        Instruction *after = call->getNextNode();
        if (!after) return; /* an invoke: its normal edge is the place; the prototype skips it */
        b.SetInsertPoint(after);
        Value *block2 = b.CreateAlignedLoad(i8ptr, tlsPointer("shim_tls_block"), Align(8));
        b.CreateAlignedStore(v, wordPtr(b, block2, tagOffset(kPccSlot)), Align(8))
            ->setAtomic(AtomicOrdering::Monotonic);
    }

    /* The function's frame address, as a word (llvm.frameaddress(0): with frame pointers
     * kept, the frame pointer register). */
    Value *frameAddress(IRBuilder<> &b)
    {
        Function *fa = Intrinsic::getDeclaration(&m, Intrinsic::frameaddress, {i8ptr});
        return b.CreatePtrToInt(
            b.CreateCall(fa, {ConstantInt::get(Type::getInt32Ty(m.getContext()), 0)}), i64,
            "shim.frame");
    }

    /* The mark that tells libshim this module's code stores the frame signal: one byte
     * in the section STACKWALK_SECTION, kept by the linker. */
    void markContexts()
    {
        if (m.getNamedGlobal("shim.contexts")) return;
        auto *g = new GlobalVariable(m, i8, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                     ConstantInt::get(i8, 1), "shim.contexts");
        g->setSection(STACKWALK_SECTION);
        appendToUsed(m, {g}); /* llvm.used: retained by the linker's garbage collection too */
    }

    /* The append of path.h: head first, then the entry's fields, its seq last. */
    void publish(IRBuilder<> &b, Constant *fn, Value *path)
    {
        Value *ring = b.CreateAlignedLoad(i8ptr, tlsPointer("shim_tls_path_ring"), Align(8));
        Value *headPtr = wordPtr(b, ring, offsetof(struct shim_path_ring, head));
        LoadInst *head = b.CreateAlignedLoad(i64, headPtr, Align(8));
        head->setAtomic(AtomicOrdering::Monotonic);
        Value *t = b.CreateAdd(head, ConstantInt::get(i64, 1));
        StoreInst *s = b.CreateAlignedStore(t, headPtr, Align(8));
        s->setAtomic(AtomicOrdering::Monotonic);
        Value *slot = b.CreateAnd(t, ConstantInt::get(i64, SHIM_PATH_RING - 1));
        Value *offset =
            b.CreateAdd(b.CreateMul(slot, ConstantInt::get(i64, sizeof(struct shim_path_entry))),
                        ConstantInt::get(i64, offsetof(struct shim_path_ring, entry)));
        Value *entry = b.CreateGEP(i8, ring, offset);
        storeWord(b, entry, offsetof(struct shim_path_entry, fn), fn, AtomicOrdering::Release);
        storeWord(b, entry, offsetof(struct shim_path_entry, path), path, AtomicOrdering::Release);
        storeWord(b, entry, offsetof(struct shim_path_entry, seq), t, AtomicOrdering::Release);
    }

    Type *int64() const { return i64; }

  private:
    static constexpr unsigned kPccSlot = 12;
    static uint64_t tagOffset(unsigned slot)
    {
        return offsetof(struct shim_block, tag) + slot * sizeof(uint64_t);
    }

    /* The thread-local pointer, declared as libshim exports it unless the module
     * already has it (a file that uses SHIM_SIGNAL declares shim_tls_block). */
    Constant *tlsPointer(StringRef name)
    {
        GlobalVariable *g = m.getNamedGlobal(name);
        if (!g) {
            g = new GlobalVariable(m, i8ptr, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                   nullptr, name, nullptr, GlobalValue::InitialExecTLSModel);
            g->setAlignment(Align(8));
        }
        return ConstantExpr::getPointerCast(g, PointerType::getUnqual(i8ptr));
    }

    Value *wordPtr(IRBuilder<> &b, Value *base, uint64_t offset)
    {
        Value *p = offset ? b.CreateConstGEP1_64(i8, base, offset) : base;
        return b.CreatePointerCast(p, PointerType::getUnqual(i64));
    }

    void storeWord(IRBuilder<> &b, Value *base, uint64_t offset, Value *v, AtomicOrdering order)
    {
        StoreInst *s = b.CreateAlignedStore(v, wordPtr(b, base, offset), Align(8));
        s->setAtomic(order);
    }

    Module &m;
    Type *i8, *i64, *i8ptr;
    bool asmStores; /* storesInAssembly */
};

/* ---- which calls and functions ---- */

/* A function of the C library that cannot run the program's code: one the target's
 * library info knows by its name and type, called where it has its library meaning,
 * whose memory attributes (inferred by the optimiser from that knowledge) say it
 * touches only its arguments' memory or memory no code of the module can reach, or
 * only reads. An instrumented function would write the thread's signal block, which is
 * neither, so none runs inside such a call: the signals are the caller's when it
 * returns, as they were during it. qsort, bsearch or atexit, which call back, have no
 * such attribute; a function that returns twice (setjmp, which the library info does
 * not list anyway) is left out by that attribute. strlen, memcmp, malloc, realloc and
 * free are the common ones. An allocator of the program's own that takes malloc's place
 * and is built with the pass leaves its signals standing after such a call returns. */
bool libraryLeaf(const CallBase &call, const TargetLibraryInfo &tli)
{
    const Function *callee = call.getCalledFunction();
    LibFunc lf;
    if (!callee || !callee->isDeclaration() || call.isNoBuiltin() || !tli.getLibFunc(*callee, lf) ||
        !tli.has(lf))
        return false;
    if (call.hasFnAttr(Attribute::ReturnsTwice)) return false;
    return call.onlyReadsMemory() || call.onlyAccessesArgMemory() ||
           call.onlyAccessesInaccessibleMemory() || call.onlyAccessesInaccessibleMemOrArgMem();
}

/* A call after whose return the signals are stored again: a real call that returns
 * and may have run instrumented code. */
bool signalsAfter(const CallBase &call, const TargetLibraryInfo &tli)
{
    if (call.isInlineAsm() || call.doesNotReturn()) return false;
    const Function *callee = call.getCalledFunction();
    if (callee && callee->isIntrinsic()) return false;
    return !libraryLeaf(call, tli);
}

/* A call that may take time or store signals: not an intrinsic that compiles to a few
 * instructions or none (a memory copy or fill may be long: it counts as a call). */
bool isRealCall(const Instruction &i)
{
    if (!isa<CallBase>(i)) return false;
    return !isa<IntrinsicInst>(i) || isa<MemIntrinsic>(i);
}

/* The instruction after `i`, passing over debug intrinsics and casts of `v`. */
const Instruction *nextReal(const Instruction *i, const Value *&v)
{
    for (const Instruction *n = i->getNextNode(); n; n = n->getNextNode()) {
        if (isa<DbgInfoIntrinsic>(n)) continue;
        if (auto *cast = dyn_cast<BitCastInst>(n); cast && cast->getOperand(0) == v) {
            v = cast;
            continue;
        }
        return n;
    }
    return nullptr;
}

/* A call the optimiser marked as a tail call and that the block returns right after.
 * Nothing is stored after it (that would stop it from being a tail call, and a
 * musttail call allows nothing between it and the return); the function's path is
 * published before it instead. */
bool inTailPosition(const Instruction &i)
{
    auto *call = dyn_cast<CallInst>(&i);
    if (!call || !call->isTailCall()) return false;
    const Value *v = call;
    return isa_and_nonnull<ReturnInst>(nextReal(call, v));
}

bool skipFunction(const Function &f)
{
    if (f.isDeclaration() || f.hasAvailableExternallyLinkage()) return true;
    if (f.hasFnAttribute(Attribute::Naked)) return true;
    if (f.hasFnAttribute(Attribute::DisableSanitizerInstrumentation)) return true;
    if (f.hasFnAttribute("shim-pass")) return true; /* already instrumented */
    StringRef name = f.getName();
    if (compat::startsWith(name, "shim_") || compat::startsWith(name, "__cyg_profile_"))
        return true;
    /* funclet-based exception handling (Windows) has pads code cannot be put in front of */
    if (f.hasPersonalityFn() && isFuncletEHPersonality(classifyEHPersonality(f.getPersonalityFn())))
        return true;
    return false;
}

/* ---- one function ---- */

class FunctionInstrumenter
{
  public:
    FunctionInstrumenter(Function &f, const Config &cfg, Emitter &emit, StringRef file,
                         const TargetLibraryInfo &tli)
        : f(f), cfg(cfg), emit(emit), file(file), tli(tli), dt(f), li(dt)
    {
    }

    void run()
    {
        collectGraph();
        numberLoops();
        findEntryLoop();
        num = numberPaths(g); /* also says which blocks are reachable, for every signal */
        FunctionRecord rec;
        rec.name = f.getName().str();
        if (DISubprogram *sp = f.getSubprogram()) {
            rec.place.file = sourceFile(sp->getDirectory(), sp->getFilename());
            rec.place.line = sp->getLine();
        }
        rec.loops = loopRecords;
        rec.blocks = blockRecords(f);
        if (cfg.path) decidePaths(rec);
        rec.numbering = &num;

        instrument();
        rec.split = split;
        f.addFnAttr("shim-pass");
        emitSideTable(*f.getParent(), f, sideTableJson(rec));
        if (cfg.verify && verifyFunction(f, &errs()))
            errs() << "shim-pass: VERIFY FAILED " << f.getName()
                   << ": the instrumented function is not valid IR\n";
    }

  private:
    void collectGraph()
    {
        for (BasicBlock &bb : f) {
            index[&bb] = (int)blocks.size();
            blocks.push_back(&bb);
        }
        g.succ.resize(blocks.size());
        g.returns.resize(blocks.size());
        predCount.assign(blocks.size(), 0);
        for (size_t u = 0; u < blocks.size(); u++) {
            Instruction *term = blocks[u]->getTerminator();
            std::vector<int> first, rest;
            SmallPtrSet<BasicBlock *, 8> seen;
            for (BasicBlock *s : successors(blocks[u])) {
                if (!seen.insert(s).second) continue;
                predCount[index[s]]++;
                (unsplittable(term, s) ? first : rest).push_back(index[s]);
            }
            /* edges that cannot get a block of their own come first: Val 0, no add */
            first.insert(first.end(), rest.begin(), rest.end());
            g.succ[u] = first;
            g.returns[u] = isa<ReturnInst>(term);
        }
    }

    static bool unsplittable(const Instruction *term, const BasicBlock *to)
    {
        return to->isEHPad() || isa<IndirectBrInst>(term) || isa<CallBrInst>(term);
    }

    void numberLoops()
    {
        for (Loop *l : li.getLoopsInPreorder()) {
            unsigned number = (unsigned)loopRecords.size() + 1;
            loopNumber[l] = number;
            LoopRecord r;
            r.number = number;
            r.parent = l->getParentLoop() ? loopNumber[l->getParentLoop()] : 0;
            r.depth = l->getLoopDepth();
            r.header = index[l->getHeader()];
            r.place = placeOf(loopLocation(l));
            loopRecords.push_back(r);
        }
    }

    /* Where a loop is in the source: its start location (the loop metadata's, else the
     * preheader's or header's branch), else the first located instruction in it, header
     * first. */
    static const DILocation *loopLocation(const Loop *l)
    {
        if (const DILocation *loc = l->getStartLoc().get(); loc && loc->getLine()) return loc;
        for (const BasicBlock *bb : l->blocks())
            for (const Instruction &i : *bb)
                if (const DILocation *loc = i.getDebugLoc().get(); loc && loc->getLine())
                    return loc;
        return nullptr;
    }

    enum class Walk { Through, Returns, Calls, Stopped };

    /* Counts block `bb`'s instructions off `left` (allocas, phis and debug records are
     * free): Returns at a return, Calls at a call of a function that stores its own
     * signals at entry (storesAtEntry), Stopped at any other call or when `left` runs
     * out, else Through, at its terminator. */
    Walk walkBlock(const BasicBlock *bb, unsigned &left) const
    {
        for (const Instruction &i : *bb) {
            if (isa<AllocaInst>(i) || isa<PHINode>(i) || isa<DbgInfoIntrinsic>(i)) continue;
            if (isa<ReturnInst>(i)) return Walk::Returns;
            if (i.isTerminator()) break;
            if (isRealCall(i))
                return storesAtEntry(cast<CallBase>(i)) ? Walk::Calls : Walk::Stopped;
            if (left-- == 0) return Walk::Stopped;
        }
        return Walk::Through;
    }

    /* Whether a call certainly runs a function that stores the signals at its entry: a
     * direct call (a CallInst: an invoke ends its block, and a walk stops there anyway)
     * of a function defined in this module that the pass instruments, and whose
     * definition is the one that runs (not weak, linkonce or interposable: the linker or
     * the loader may take another copy, built without the pass). This function stores
     * again after the call returns (afterCall). */
    static bool storesAtEntry(const CallBase &call)
    {
        const Function *callee = call.getCalledFunction();
        if (!callee || callee->isDeclaration() || call.isInlineAsm() || !isa<CallInst>(call))
            return false;
        if (!callee->hasExactDefinition() || callee->isInterposable()) return false;
        return callee->hasFnAttribute("shim-pass") || !skipFunction(*callee);
    }

    /* The edge by which the function enters its first loop, when that comes within
     * kShortCode instructions of its entry, with no call, on its only path (through
     * blocks joined by unconditional branches, each entered from the one before only).
     * The entry then stores that loop's value at once and the edge stores nothing: the
     * few instructions before the loop count to the loop, in the same function, where
     * the store at entry would have been overwritten a moment later. */
    void findEntryLoop()
    {
        if (!cfg.loop) return;
        const BasicBlock *bb = &f.getEntryBlock();
        unsigned left = kShortCode;
        for (int hops = 0; hops < 4; hops++) {
            if (walkBlock(bb, left) != Walk::Through) return;
            auto *br = dyn_cast<BranchInst>(bb->getTerminator());
            if (!br || !br->isUnconditional()) return;
            const BasicBlock *to = br->getSuccessor(0);
            if (to->isLandingPad()) return;
            if (li.getLoopFor(to)) {
                entryLoop = {index[bb], index[to]};
                return;
            }
            if (to->getSinglePredecessor() != bb) return;
            bb = to;
        }
    }

    /* Whether the edge `k` out of block `u` stores the loop word: it enters, leaves or
     * crosses loops (not into a landing pad, which stores as a return from a call), and
     * is not the edge into the first loop whose value the entry stores. */
    bool crossesLoops(int u, size_t k) const
    {
        int v = g.succ[u][k];
        return cfg.loop && !blocks[v]->isLandingPad() &&
               li.getLoopFor(blocks[u]) != li.getLoopFor(blocks[v]) &&
               !(u == entryLoop.first && v == entryLoop.second);
    }

    /* A loop store is left out when, from the top of its edge's target, every path
     * comes within kShortCode instructions, and with no other call, to a return (the
     * caller's own store follows it), to a call of a function that stores at its entry
     * (storesAtEntry: this function stores again after it returns) or to an edge whose
     * loop store is kept: those few instructions count to a neighbouring loop of the
     * same function instead (a loop just left on a short way to a call or out; an
     * outer loop passed through on the way into an inner one). An edge whose store
     * covers another's is kept for good, so that no stretch without a store is longer
     * than kShortCode. Decided on the CFG as the optimiser left it. */
    void dropCoveredLoopStores()
    {
        dropped.assign(blocks.size(), {});
        pinned.assign(blocks.size(), {});
        for (size_t u = 0; u < blocks.size(); u++) {
            dropped[u].assign(g.succ[u].size(), 0);
            pinned[u].assign(g.succ[u].size(), 0);
        }
        for (size_t u = 0; u < blocks.size(); u++) {
            if (!num.reachable[u]) continue;
            for (size_t k = 0; k < g.succ[u].size(); k++) {
                if (!crossesLoops((int)u, k) || pinned[u][k]) continue;
                std::vector<std::pair<int, size_t>> cover;
                visits = 0;
                if (!soonStored(g.succ[u][k], kShortCode, 0, cover)) continue;
                dropped[u][k] = 1;
                for (auto [cu, ck] : cover)
                    pinned[cu][ck] = 1;
            }
        }
    }

    /* Whether every path from the top of block `v` reaches a return, a call of a
     * function that stores at entry or a kept loop store within `left` instructions
     * with no other call; `cover` collects those stores. */
    bool soonStored(int v, unsigned left, int hops, std::vector<std::pair<int, size_t>> &cover)
    {
        if (hops > 8 || ++visits > 64) return false; /* a bound on the work, not only the depth */
        const BasicBlock *bb = blocks[v];
        if (Walk w = walkBlock(bb, left); w != Walk::Through)
            return w == Walk::Returns || w == Walk::Calls;
        const Instruction *term = bb->getTerminator();
        if ((!isa<BranchInst>(term) && !isa<SwitchInst>(term)) || left == 0) return false;
        for (size_t k = 0; k < g.succ[v].size(); k++) {
            if (crossesLoops(v, k) && !dropped[v][k]) {
                cover.push_back({v, k});
                continue;
            }
            if (!soonStored(g.succ[v][k], left - 1, hops + 1, cover)) return false;
        }
        return true;
    }

    /* The loop signal of a block's innermost loop, as path.h's shim_loop_stored(): below
     * SHIM_LOOP_SHORT the function's address + the loop number (the function is aligned
     * to SHIM_LOOP_SHORT: instrument()), one RIP-relative lea that the code generator
     * makes again where it is needed rather than keeping it in a register or on the
     * stack; above it, the number in the top 16 bits (fn | loop << 48: three
     * instructions). Loop numbers above what the signal has room for (SHIM_LOOP_MAX) use
     * their nearest ancestor that fits. */
    Constant *loopValue(const BasicBlock *bb)
    {
        const Loop *l = li.getLoopFor(bb);
        while (l && loopNumber[l] > kMaxLoopNumber)
            l = l->getParentLoop();
        if (!l) return methodWord();
        unsigned n = loopNumber[l];
        if (n < SHIM_LOOP_SHORT && lowBitsFree)
            return ConstantExpr::getPtrToInt(
                ConstantExpr::getGetElementPtr(Type::getInt8Ty(f.getContext()), &f,
                                               ConstantInt::get(emit.int64(), n)),
                emit.int64());
        return withTop(n);
    }

    Constant *methodValue() { return ConstantExpr::getPtrToInt(&f, emit.int64()); }

    /* The function's address with `top` in its top 16 bits: SHIM_LOOP_SIGNAL(fn, top). */
    Constant *withTop(uint64_t top)
    {
        return compat::disjointOr(methodValue(),
                                  ConstantInt::get(emit.int64(), top << SHIM_LOOP_SHIFT));
    }

    /* The function outside its loops, as slot 10 stores it: its address, or, where the
     * address may not be aligned, SHIM_LOOP_EXACT's form (path.h). */
    Constant *methodWord() { return lowBitsFree ? methodValue() : withTop(SHIM_LOOP_NONE); }

    /* Whether the function's address, as the program sees it, is where its aligned code
     * starts: not when something comes before the symbol (prefix data, the function
     * sanitizer's signature, patchable entry nops before it, a kCFI type hash) or when
     * its address may be a control-flow-integrity jump table's entry (8 bytes apart).
     * Then every loop word keeps the number in the top 16 bits. */
    bool addressIsCode() const
    {
        SmallVector<MDNode *, 2> types;
        f.getMetadata(LLVMContext::MD_type, types);
        return !f.hasPrefixData() && !f.hasFnAttribute("patchable-function-prefix") &&
               !f.getMetadata("func_sanitize") && !f.getMetadata("kcfi_type") && types.empty();
    }

    bool needsSplit(int u, int v) const { return g.succ[u].size() > 1 && predCount[v] > 1; }

    /* Whether the function gets the path signal, and why not when it does not. */
    void decidePaths(FunctionRecord &rec)
    {
        std::string detail, why;
        if (num.saturated || num.paths > cfg.maxPaths) {
            std::string count = std::to_string(num.paths);
            if (num.saturated) {
                char buf[64];
                snprintf(buf, sizeof buf, "%.3g", num.approxPaths);
                count = buf;
            }
            detail = count + " paths (more than " + std::to_string(cfg.maxPaths) + ")";
            why = count + " paths > " + std::to_string(cfg.maxPaths);
        } else if (f.callsFunctionThatReturnsTwice()) {
            /* after a second return from setjmp the path register holds whatever the
             * longjmp restored: the numbers it would publish could be meaningless */
            why = detail = "calls a function that returns twice (setjmp)";
        } else {
            why = detail = unplaceablePathEdge();
        }
        if (!why.empty()) {
            errs() << "shim-pass: " << file << ": " << f.getName() << ": " << detail
                   << ": method and loop signals only\n";
            rec.fallback = why;
            return;
        }
        rec.paths = num.paths;
        pathOn = num.paths > 0;
        if (!cfg.verify) return;
        if (num.paths > kVerifyLimit) {
            errs() << "shim-pass: not enumerated " << f.getName() << ": " << num.paths
                   << " paths (more than " << kVerifyLimit << ")\n";
            return;
        }
        std::string err = verifyNumbering(num, kVerifyLimit);
        if (err.empty())
            errs() << "shim-pass: verified " << f.getName() << ": " << num.paths << " paths\n";
        else
            errs() << "shim-pass: VERIFY FAILED " << f.getName() << ": " << err << "\n";
    }

    /* An edge that must carry a path update but can be neither given a block of its
     * own nor served from one of its ends ("" when there is none). Such edges are
     * ordered first among their block's successors, so only a second one from an
     * indirect branch or an asm goto, or a back edge into an exception handler, is. */
    std::string unplaceablePathEdge() const
    {
        for (size_t u = 0; u < blocks.size(); u++) {
            if (!num.reachable[u]) continue;
            Instruction *term = blocks[u]->getTerminator();
            for (size_t k = 0; k < g.succ[u].size(); k++) {
                int v = g.succ[u][k];
                bool code = num.back[u][k] || (num.live[u][k] && num.val[u][k] != 0);
                if (code && needsSplit((int)u, v) && unsplittable(term, blocks[v]))
                    return "edge " + std::to_string(u) + " -> " + std::to_string(v) +
                           " needs a path update and cannot be split";
            }
        }
        return "";
    }

    /* ---- placing code ---- */

    void instrument()
    {
        /* everything below is decided on the CFG as it was; collect before changing */
        if (cfg.loop) dropCoveredLoopStores();
        /* the loop word's low bits carry loop numbers below SHIM_LOOP_SHORT (loopValue) */
        lowBitsFree = addressIsCode();
        if (lowBitsFree && f.getAlign().valueOrOne() < Align(SHIM_LOOP_SHORT))
            f.setAlignment(Align(SHIM_LOOP_SHORT));
        std::vector<Instruction *> calls;
        for (BasicBlock *bb : blocks)
            for (Instruction &i : *bb)
                if (auto *call = dyn_cast<CallInst>(&i))
                    if (signalsAfter(*call, tli) && !inTailPosition(*call)) calls.push_back(call);

        BasicBlock &entry = f.getEntryBlock();
        IRBuilder<> b(&entry, entry.begin());
        if (pathOn) pathSum = b.CreateAlloca(emit.int64(), nullptr, "shim.path");

        b.SetInsertPoint(firstAfterAllocas(entry));
        if (pathOn) b.CreateStore(ConstantInt::get(emit.int64(), 0), pathSum);
        if (cfg.context) {
            /* the frame pointer chain is the context: keep it in this function */
            f.addFnAttr("frame-pointer", "all");
            frame = emit.frameAddress(b);
        }
        const BasicBlock *first = entryLoop.first >= 0 ? blocks[entryLoop.second] : &entry;
        emit.storeSignals(b, cfg.method ? methodWord() : nullptr,
                          cfg.loop ? loopValue(first) : nullptr, frame, true);

        for (Instruction *call : calls) {
            b.SetInsertPoint(call->getNextNode());
            afterCall(b, call->getParent());
        }
        if (cfg.pcc) {
            uint64_t site = std::hash<std::string>()(f.getName().str()) | 1;
            for (Instruction *call : calls)
                emit.pccAround(cast<CallBase>(call), site += 0x9e3779b97f4a7c15ull);
        }
        /* an exception caught here returns from a call too, by the unwind edge */
        for (BasicBlock *bb : blocks)
            if (bb->isLandingPad() && (cfg.method || cfg.loop || cfg.context)) {
                b.SetInsertPoint(bb, bb->getFirstInsertionPt());
                afterCall(b, bb);
            }
        if (pathOn)
            for (size_t u = 0; u < blocks.size(); u++)
                if (num.reachable[u] && g.returns[u]) publishReturn((int)u);
        for (size_t u = 0; u < blocks.size(); u++)
            if (num.reachable[u])
                for (size_t k = 0; k < g.succ[u].size(); k++)
                    instrumentEdge((int)u, k);

        if (pathOn) {
            DominatorTree fresh(f);
            PromoteMemToReg({pathSum}, fresh);
        }
    }

    static Instruction *firstAfterAllocas(BasicBlock &bb)
    {
        for (Instruction &i : bb)
            if (!isa<AllocaInst>(i)) return &i;
        return bb.getTerminator();
    }

    void afterCall(IRBuilder<> &b, const BasicBlock *bb)
    {
        emit.storeSignals(b, cfg.method ? methodWord() : nullptr,
                          cfg.loop ? loopValue(bb) : nullptr, frame, false);
    }

    void publishReturn(int u)
    {
        Instruction *ret = blocks[u]->getTerminator();
        Instruction *at = ret;
        /* a tail call publishes before it: nothing may come between it and the return */
        for (Instruction *i = ret->getPrevNode(); i; i = i->getPrevNode()) {
            if (isa<DbgInfoIntrinsic>(i) || isa<BitCastInst>(i)) continue;
            if (inTailPosition(*i)) at = i;
            break;
        }
        IRBuilder<> b(at);
        Value *r = b.CreateLoad(emit.int64(), pathSum);
        if (num.returnVal[u]) r = b.CreateAdd(r, ConstantInt::get(emit.int64(), num.returnVal[u]));
        emit.publish(b, methodValue(), r);
    }

    void instrumentEdge(int u, size_t k)
    {
        int v = g.succ[u][k];
        BasicBlock *from = blocks[u], *to = blocks[v];
        Instruction *term = from->getTerminator();
        auto *invoke = dyn_cast<InvokeInst>(term);
        bool postCall = invoke && invoke->getNormalDest() == to && signalsAfter(*invoke, tli) &&
                        (cfg.method || cfg.loop || cfg.context);
        /* a back edge within one loop changes nothing: the value is already that loop's
         * (its body's inner loops store it on their exits, its calls after they return);
         * nor does an edge whose store is covered (findEntryLoop, dropCoveredLoopStores) */
        bool loopCross = crossesLoops(u, k) && (postCall || !dropped[u][k]);
        bool back = pathOn && num.back[u][k];
        bool add = pathOn && !back && num.live[u][k] && num.val[u][k] != 0;
        if (!postCall && !loopCross && !back && !add) return;

        Instruction *at;
        if (g.succ[u].size() == 1) {
            at = term;
        } else if (predCount[v] == 1) {
            at = &*to->getFirstInsertionPt();
        } else if (!unsplittable(term, to)) {
            BasicBlock *mid = splitEdge(from, to);
            if (!mid) return;
            split.push_back({u, v});
            at = mid->getTerminator();
        } else {
            /* only a loop store gets here (decidePaths refused the others): its
             * value depends on the target alone, so it may go at the target's top */
            at = &*to->getFirstInsertionPt();
        }
        IRBuilder<> b(at);
        if (postCall || loopCross)
            emit.storeSignals(b, postCall && cfg.method ? methodWord() : nullptr,
                              cfg.loop ? loopValue(to) : nullptr, postCall ? frame : nullptr,
                              false);
        Type *i64 = emit.int64();
        if (back) {
            Value *r = b.CreateLoad(i64, pathSum);
            if (num.endVal[u]) r = b.CreateAdd(r, ConstantInt::get(i64, num.endVal[u]));
            emit.publish(b, methodValue(), r);
            b.CreateStore(ConstantInt::get(i64, num.startVal[v]), pathSum);
        } else if (add) {
            Value *r = b.CreateLoad(i64, pathSum);
            b.CreateStore(b.CreateAdd(r, ConstantInt::get(i64, num.val[u][k])), pathSum);
        }
    }

    BasicBlock *splitEdge(BasicBlock *from, BasicBlock *to)
    {
        Instruction *term = from->getTerminator();
        for (unsigned i = 0; i < term->getNumSuccessors(); i++) {
            if (term->getSuccessor(i) != to) continue;
            BasicBlock *mid = SplitCriticalEdge(
                term, i, CriticalEdgeSplittingOptions().setMergeIdenticalEdges(), "shim.edge");
            if (!mid)
                errs() << "shim-pass: " << file << ": " << f.getName()
                       << ": an edge could not be split; its signals are missing\n";
            return mid;
        }
        return nullptr;
    }

    Function &f;
    const Config &cfg;
    Emitter &emit;
    StringRef file;
    const TargetLibraryInfo &tli;
    DominatorTree dt;
    LoopInfo li;

    std::vector<BasicBlock *> blocks;
    DenseMap<const BasicBlock *, int> index;
    FlowGraph g;
    std::vector<unsigned> predCount; /* distinct predecessors of each block */
    DenseMap<const Loop *, unsigned> loopNumber;
    std::vector<LoopRecord> loopRecords;
    Numbering num;
    bool pathOn = false;
    AllocaInst *pathSum = nullptr;
    Value *frame = nullptr; /* the frame address, computed at entry (context signal) */
    std::pair<int, int> entryLoop{-1, -1}; /* the edge into the first loop (findEntryLoop) */
    std::vector<std::vector<char>> dropped, pinned; /* per edge: dropCoveredLoopStores */
    unsigned visits = 0;                            /* blocks one soonStored query looked at */
    bool lowBitsFree = false; /* the loop word may be fn + loop (addressIsCode, instrument) */
    std::vector<std::pair<int, int>> split;
};

/* ---- the pass ---- */

struct ShimPass : PassInfoMixin<ShimPass> {
    PreservedAnalyses run(Module &m, ModuleAnalysisManager &mam)
    {
        Config cfg = readConfig();
        if (!cfg.any()) return PreservedAnalyses::all();
        std::vector<Function *> todo;
        for (Function &f : m)
            if (!skipFunction(f)) todo.push_back(&f);
        if (todo.empty()) return PreservedAnalyses::all();
        Emitter emit(m);
        std::string file = m.getSourceFileName();
        FunctionAnalysisManager &fam =
            mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
        for (Function *f : todo)
            FunctionInstrumenter(*f, cfg, emit, file, fam.getResult<TargetLibraryAnalysis>(*f))
                .run();
        if (cfg.context) emit.markContexts();
        if (cfg.verify && verifyModule(m, &errs()))
            errs() << "shim-pass: VERIFY FAILED " << file << ": the module is not valid IR\n";
        return PreservedAnalyses::none();
    }
    static bool isRequired() { return true; }
};

} // namespace

/* The one exported symbol: what clang looks up in the plugin. */
extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default"))) PassPluginLibraryInfo
llvmGetPassPluginInfo()
{
    return {LLVM_PLUGIN_API_VERSION, "shim-pass", "0.1", [](PassBuilder &pb) {
                pb.registerOptimizerLastEPCallback(
                    [](ModulePassManager &mpm, OptimizationLevel) { mpm.addPass(ShimPass()); });
                /* opt -load-pass-plugin=shim-pass.so -passes=shim-pass */
                pb.registerPipelineParsingCallback([](StringRef name, ModulePassManager &mpm,
                                                      ArrayRef<PassBuilder::PipelineElement>) {
                    if (name != "shim-pass") return false;
                    mpm.addPass(ShimPass());
                    return true;
                });
            }};
}
