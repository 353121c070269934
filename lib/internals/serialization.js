'use strict';
// tf.serialization: classes registered by name so that configs can be turned back into
// objects (layers, initializers, constraints ... use it).
const { util } = require('../util');

const { assert } = util;

class Serializable {
  // The name a class serializes under: its static `className` (robust to minification).
  getClassName() {
    return this.constructor.className;
  }

  static fromConfig(cls, config) {
    return new cls(config);
  }
}

class SerializationMap {
  constructor() {
    this.classNameMap = {};
  }

  static getMap() {
    if (SerializationMap.instance == null) SerializationMap.instance = new SerializationMap();
    return SerializationMap.instance;
  }

  static register(cls) {
    SerializationMap.getMap().classNameMap[cls.className] = [cls, cls.fromConfig];
  }
}

// 'package>name' -> class and back, for getRegisteredName.
const customObjects = new Map();
const customNames = new Map();

function registerClass(cls, pkg, name) {
  assert(cls.className != null, () => 'Class being registered does not have the static className property defined.');
  assert(typeof cls.className === 'string', () =>
    `className is required to be a string, but got type ${typeof cls.className}`);
  assert(cls.className.length > 0, () =>
    'Class being registered has an empty-string as its className, which is disallowed.');
  const registerName = `${pkg === undefined ? 'Custom' : pkg}>${name === undefined ? cls.className : name}`;
  SerializationMap.register(cls);
  customObjects.set(registerName, cls);
  customNames.set(cls, registerName);
  return cls;
}

const getRegisteredName = (cls) => (customNames.has(cls) ? customNames.get(cls) : cls.className);

const serialization = { Serializable, SerializationMap, getRegisteredName, registerClass };

module.exports = { serialization };
