/*
 * llvm_compat.h -- the few places where the LLVM versions the pass builds against (14 to
 * 19) differ, kept here so that the pass is one source for all of them:
 *   - the byte pointer type: Type::getInt8PtrTy up to 16 (i8* with typed pointers, `ptr`
 *     with opaque ones, clang's default from 15), deprecated in 17 and gone in 18, where
 *     every pointer is the one opaque `ptr`;
 *   - EHPersonalities.h moved from Analysis to IR in 17;
 *   - StringRef::startswith is deprecated in 18 (starts_with is new in 16);
 *   - the `or` constant expression is gone in 18, so a constant with disjoint bits is
 *     combined with `add`, which every version keeps;
 *   - Triple.h moved from ADT to TargetParser in 17.
 */
#ifndef SHIM_PASS_LLVM_COMPAT_H
#define SHIM_PASS_LLVM_COMPAT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#if LLVM_VERSION_MAJOR >= 17
#include "llvm/IR/EHPersonalities.h"
#include "llvm/TargetParser/Triple.h"
#else
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/EHPersonalities.h"
#endif

#if LLVM_VERSION_MAJOR < 14 || LLVM_VERSION_MAJOR > 19
#error "shim-pass is written for LLVM 14 to 19"
#endif

namespace shimpass::compat
{

/* The type of a pointer to bytes in address space 0. */
inline llvm::PointerType *bytePointer(llvm::LLVMContext &c)
{
#if LLVM_VERSION_MAJOR >= 17
    return llvm::PointerType::getUnqual(c);
#else
    return llvm::Type::getInt8PtrTy(c);
#endif
}

inline bool startsWith(llvm::StringRef s, llvm::StringRef prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

/* a | b for two integer constants with no bit in common (a function's address and bits
 * above it), folded or kept as a constant expression on every version. */
inline llvm::Constant *disjointOr(llvm::Constant *a, llvm::Constant *b)
{
    return llvm::ConstantExpr::getAdd(a, b);
}

} // namespace shimpass::compat

#endif
