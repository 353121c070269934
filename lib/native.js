'use strict';
// Loads the compiled addon: a local build from source, else the prebuilt package for this
// platform (see binding.js).
//
// The JavaScript layers check arguments before they reach the addon (lib/ops/args.js), so that
// users see tfjs's texts. As a backstop for any argument that still reaches it in the wrong
// type, napi-rs's converter errors ("Failed to convert napi value String into rust type `f64`")
// are rethrown here as a plain Error naming the function and the types instead; every other
// error passes through untouched. Classes keep their identity (a Proxy for the constructor, the
// prototype's methods wrapped in place), so instanceof and subclassing still work.
const addon = require('../binding').loadAddon();

const CONVERTER = /Failed to convert (?:napi value|JavaScript value)\s*(?:`?(\w+)[^`]*`?\s*)?into rust type `([^`]+)`(?: on (\S+))?/;

const JS_TYPES = {
  String: 'a string', Number: 'a number', Boolean: 'a boolean', Undefined: 'undefined', Null: 'null',
  Object: 'an object', Function: 'a function', Symbol: 'a symbol', BigInt: 'a bigint', External: 'an external value',
};

function rustTypeWords(t) {
  if (/^[fiu](8|16|32|64|size)$/.test(t)) return 'a number';
  if (t === 'bool') return 'a boolean';
  if (t === 'String' || t === '&str') return 'a string';
  if (/^(Vec|Array)\b/.test(t)) return 'an array';
  if (/Array$/.test(t)) return `a ${t}`;
  return t;
}

// The converter's text as one that names the function and, where napi-rs says them, the field
// and the types; null when `e` is not a converter error.
function translate(e, fnName) {
  if (!(e instanceof Error)) return null;
  const m = CONVERTER.exec(e.message);
  if (!m) {
    // napi-rs's other argument errors ("Failed to get Array length") carry the JavaScript type
    // it wanted in their code: ArrayExpected, NumberExpected ...
    const wanted = /^(\w+)Expected$/.exec(e.code || '');
    if (!wanted) return null;
    const kind = wanted[1].toLowerCase();
    const out = new Error(`An argument of ${fnName} must be ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}.`);
    out.cause = e;
    return out;
  }
  const [, jsType, rustType, field] = m;
  const where = field ? ` (${field.split('.').pop()})` : '';
  const got = jsType ? `, but got ${JS_TYPES[jsType] || jsType}` : '';
  const out = new Error(`An argument of ${fnName}${where} must be ${rustTypeWords(rustType)}${got}.`);
  out.cause = e;
  return out;
}

function guardFunction(f, fnName) {
  const guarded = function guardedNative() {
    try {
      return f.apply(this, arguments);
    } catch (e) {
      throw translate(e, fnName) || e;
    }
  };
  Object.defineProperty(guarded, 'name', { value: f.name });
  return guarded;
}

function guardClass(Cls, className) {
  const proto = Cls.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (typeof d.value === 'function') {
      Object.defineProperty(proto, key, { ...d, value: guardFunction(d.value, `${className}.${key}`) });
    }
  }
  return new Proxy(Cls, {
    construct(target, args, newTarget) {
      try {
        return Reflect.construct(target, args, newTarget);
      } catch (e) {
        throw translate(e, `new ${className}`) || e;
      }
    },
  });
}

const isClass = (f) => f.prototype != null && Object.getOwnPropertyNames(f.prototype).length > 1;

// Called around every op with values lib/ makes itself (tensor ids, typed arrays, op codes):
// left unwrapped, since a wrapper costs a few percent of creating and disposing a small tensor.
const HOT = new Set(['makeF32', 'makeI32', 'makeBool', 'dispose', 'isDisposed', 'throwIfDisposed',
  'tensorMeta', 'unary', 'binary', 'startScope', 'endScope', 'keep', 'dataSync', 'dataAsync']);

const guarded = {};
for (const key of Object.keys(addon)) {
  const v = addon[key];
  if (typeof v !== 'function' || HOT.has(key)) guarded[key] = v;
  else guarded[key] = isClass(v) ? guardClass(v, key) : guardFunction(v, key);
}

module.exports = guarded;
