/*
 * sidetable.cpp -- one record per instrumented function in the section shim_sidetable.
 *
 * A record is four 8-byte words, { magic, function address, address of the JSON text,
 * its length }, in a writable section: its two pointers are relocations, resolved by
 * the static or dynamic linker like any other data pointer, so a program (or libshim
 * inside it) reads its own table between __start_shim_sidetable and
 * __stop_shim_sidetable with the real run-time addresses. The linker concatenates the
 * records of all objects; each is 8-byte aligned and 32 bytes long, so the section is
 * an array. The JSON text is a private NUL-terminated constant; its format is in
 * docs/compiler-pass.md, and it is written with LLVM's JSON writer, which escapes
 * every name and path as JSON requires.
 *
 * A function in a COMDAT group (a C++ inline function, a template) takes its record
 * into the same group, so the copies the linker discards lose their records too.
 */
#include "signals/pass/sidetable.h"

#include "signals/pass/llvm_compat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>

using namespace llvm;

namespace shimpass
{

static std::string validUtf8(StringRef s)
{
    return json::isUTF8(s) ? s.str() : json::fixUTF8(s);
}

std::string sourceFile(StringRef dir, StringRef file)
{
    if (file.empty()) return "";
    if (dir.empty() || sys::path::is_absolute(file)) return validUtf8(file);
    SmallString<256> p(dir);
    sys::path::append(p, file);
    return validUtf8(p.str());
}

SourcePlace placeOf(const DILocation *loc)
{
    SourcePlace p;
    if (!loc) return p;
    p.file = sourceFile(loc->getDirectory(), loc->getFilename());
    p.line = loc->getLine();
    return p;
}

std::vector<BlockRecord> blockRecords(Function &f)
{
    std::vector<BlockRecord> out;
    for (BasicBlock &bb : f) {
        BlockRecord r;
        r.name = validUtf8(bb.getName());
        for (Instruction &i : bb) {
            const DILocation *loc = i.getDebugLoc().get();
            if (!loc) continue;
            while (const DILocation *at = loc->getInlinedAt())
                loc = at;
            if (loc->getLine() == 0) continue;
            std::string file = sourceFile(loc->getDirectory(), loc->getFilename());
            if (r.file.empty()) r.file = file;
            if (file != r.file) continue;
            if (std::find(r.lines.begin(), r.lines.end(), loc->getLine()) == r.lines.end())
                r.lines.push_back(loc->getLine());
        }
        out.push_back(std::move(r));
    }
    return out;
}

static void fileAttribute(json::OStream &j, const std::string &file)
{
    if (file.empty())
        j.attribute("file", nullptr);
    else
        j.attribute("file", file);
}

static int64_t node(int n)
{
    return n;
}

std::string sideTableJson(const FunctionRecord &r)
{
    std::string text;
    raw_string_ostream os(text);
    json::OStream j(os);
    j.object([&] {
        j.attribute("name", validUtf8(r.name));
        fileAttribute(j, r.place.file);
        j.attribute("line", (int64_t)r.place.line);
        j.attribute("paths", (int64_t)r.paths);
        if (r.fallback.empty())
            j.attribute("fallback", nullptr);
        else
            j.attribute("fallback", r.fallback);
        j.attributeArray("loops", [&] {
            for (const LoopRecord &l : r.loops)
                j.object([&] {
                    j.attribute("loop", (int64_t)l.number);
                    fileAttribute(j, l.place.file);
                    j.attribute("line", (int64_t)l.place.line);
                    j.attribute("parent", (int64_t)l.parent);
                    j.attribute("depth", (int64_t)l.depth);
                    j.attribute("header", (int64_t)l.header);
                });
        });
        j.attributeArray("blocks", [&] {
            for (const BlockRecord &b : r.blocks)
                j.object([&] {
                    j.attribute("name", b.name);
                    fileAttribute(j, b.file);
                    j.attributeArray("lines", [&] {
                        for (unsigned line : b.lines)
                            j.value((int64_t)line);
                    });
                });
        });
        j.attributeArray("edges", [&] {
            if (r.paths == 0 || !r.numbering) return;
            for (const DagEdge &e : r.numbering->edges)
                j.array([&] {
                    j.value(node(e.from));
                    j.value(node(e.to));
                    j.value((int64_t)e.val);
                    j.value(edgeKindName(e.kind));
                });
        });
        j.attributeArray("split", [&] {
            for (const auto &e : r.split)
                j.array([&] {
                    j.value(node(e.first));
                    j.value(node(e.second));
                });
        });
    });
    os.flush();
    return text;
}

void emitSideTable(Module &m, Function &f, const std::string &text)
{
    LLVMContext &c = m.getContext();
    Type *i64 = Type::getInt64Ty(c);
    Type *i8ptr = compat::bytePointer(c);
    Constant *bytes = ConstantDataArray::getString(c, text, /*AddNull=*/true);
    auto *json = new GlobalVariable(m, bytes->getType(), /*isConstant=*/true,
                                    GlobalValue::PrivateLinkage, bytes, "shim.sidetable.json");
    json->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    json->setAlignment(Align(1));

    StructType *recordType = StructType::get(c, {i64, i8ptr, i8ptr, i64});
    Constant *fields[] = {
        ConstantInt::get(i64, kSideTableMagic), ConstantExpr::getPointerCast(&f, i8ptr),
        ConstantExpr::getPointerCast(json, i8ptr), ConstantInt::get(i64, text.size())};
    auto *record =
        new GlobalVariable(m, recordType, /*isConstant=*/false, GlobalValue::PrivateLinkage,
                           ConstantStruct::get(recordType, fields), "shim.sidetable");
    record->setSection(kSideTableSection);
    record->setAlignment(Align(8));
    if (Comdat *group = f.getComdat()) {
        record->setComdat(group);
        json->setComdat(group);
    }
    appendToUsed(m, {record});
}

} // namespace shimpass
