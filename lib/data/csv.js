'use strict';
// tf.data.csv and the sources under it, as tfjs-data reads files in Node: a data source gives
// byte chunks, a TextLineDataset the lines of their UTF-8 text, a CSVDataset one element per
// row (tfjs's quoting rules, numeric parsing and column configs). Sources are `file://` URLs,
// plain file paths (read with node:fs, where tfjs would fetch them), other URLs (fetched),
// and Uint8Arrays.
const fs = require('node:fs');
const { StringDecoder } = require('node:string_decoder');
const { util } = require('../util');
const { Dataset } = require('./dataset');
const { LazyIterator, SerialIterator } = require('./iterators');

const isLocalPath = (source) => typeof source === 'string' && source.slice(0, 7) === 'file://';
// A string with a scheme (http://, https://, data: ...) is a URL; anything else a file path.
const isUrl = (source) => typeof source !== 'string'
  || (/^[a-z][a-z0-9+.-]*:/i.test(source) && !/^[a-z]:[\\/]/i.test(source));

// Chunks of a Uint8Array (1 MiB unless `chunkSize`), decodable as UTF-8 text.
class FileChunkIterator extends LazyIterator {
  constructor(file, options = {}) {
    super();
    util.assert(file instanceof Uint8Array, () => 'FileChunkIterator only supports File, Blob and Uint8Array right now.');
    this.file = file;
    this.offset = options.offset || 0;
    this.chunkSize = options.chunkSize || 1024 * 1024;
  }

  async next() {
    if (this.offset >= this.file.byteLength) return { value: null, done: true };
    const end = this.offset + this.chunkSize;
    const chunk = new Uint8Array(this.file.slice(this.offset, end));
    this.offset = end;
    return { value: chunk, done: false };
  }

  // The chunks as text; a character split between chunks is decoded whole.
  decodeUTF8() {
    const decoder = new StringDecoder('utf8');
    return this.map((chunk) => decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  }
}

// Bytes from a file (`file://` URL or path), a Uint8Array, read on each iterator() call.
class FileDataSource {
  constructor(input, options = {}) {
    this.input = input;
    this.options = options;
  }

  async iterator() {
    let data = this.input;
    if (typeof data === 'string') data = fs.readFileSync(isLocalPath(data) ? data.slice(7) : data);
    return new FileChunkIterator(data, this.options);
  }
}

// Bytes from a URL: files through FileDataSource, others fetched.
class URLDataSource {
  constructor(url, fileOptions = {}) {
    this.url = url;
    this.fileOptions = fileOptions;
  }

  async iterator() {
    if (!isUrl(this.url) || isLocalPath(this.url)) return new FileDataSource(this.url, this.fileOptions).iterator();
    const request = typeof this.url === 'string' ? [this.url] : [this.url.url, this.url];
    const response = await util.fetch(...request);
    if (!response.ok) throw new Error(response.statusText);
    return new FileChunkIterator(new Uint8Array(await response.arrayBuffer()), this.fileOptions);
  }
}

// Lines of a source's text ('\n' ends a line, a trailing '\r' is dropped; a last empty line
// is no line).
class TextLineDataset extends Dataset {
  constructor(input) {
    super();
    this.input = input;
  }

  async iterator() {
    const text = (await this.input.iterator()).decodeUTF8();
    let carry = '';
    let queue = [];
    let ended = false;
    // Serial: a prefetch asks for several lines at once, and the carry must move in order.
    const lines = new (class extends SerialIterator {
      async serialNext() {
        while (queue.length === 0) {
          if (ended) return { value: null, done: true };
          const chunk = await text.next();
          if (chunk.done) {
            ended = true;
            if (carry !== '') queue.push(carry);
          } else {
            const parts = (carry + chunk.value).split('\n');
            carry = parts.pop();
            queue = parts;
          }
        }
        return { value: queue.shift(), done: false };
      }
    })();
    return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  }
}

const STATE_OUT = 0;
const STATE_FIELD = 1;
const STATE_QUOTE = 2;
const STATE_QUOTE_AFTER_QUOTE = 3;
const STATE_WITHIN_QUOTE_IN_QUOTE = 4;

// Rows of a CSV source as objects keyed by column name; `{xs, ys}` when a column is a label.
class CSVDataset extends Dataset {
  constructor(input, csvConfig) {
    super();
    this.input = input;
    this.base = new TextLineDataset(input);
    const config = csvConfig || {};
    this.hasHeader = config.hasHeader !== false;
    this.fullColumnNames = config.columnNames;
    this.columnConfigs = config.columnConfigs;
    this.configuredColumnsOnly = config.configuredColumnsOnly;
    this.columnNamesValidated = false;
    if (config.delimWhitespace) {
      util.assert(config.delimiter == null, () => 'Delimiter should not be provided when delimWhitespace is true.');
      this.delimWhitespace = true;
      this.delimiter = ' ';
    } else {
      this.delimWhitespace = false;
      this.delimiter = config.delimiter ? config.delimiter : ',';
    }
  }

  async columnNames() {
    if (!this.columnNamesValidated) await this.setColumnNames();
    return this.configuredColumnsOnly ? Object.keys(this.columnConfigs) : this.fullColumnNames;
  }

  // Names from columnNames or the header line; columnConfigs' keys must be among them.
  async setColumnNames() {
    const fromFile = await this.maybeReadHeaderLine();
    if (!this.fullColumnNames && !fromFile) throw new Error('Column names must be provided if there is no header line.');
    if (this.fullColumnNames && fromFile) {
      util.assert(fromFile.length === this.fullColumnNames.length, () => `The length of provided columnNames (${
        this.fullColumnNames.length}) does not match the length of the header line read from file (${fromFile.length}).`);
    }
    if (!this.fullColumnNames) this.fullColumnNames = fromFile;
    const counts = {};
    for (const name of this.fullColumnNames) counts[name] = (counts[name] + 1) || 1;
    const duplicates = Object.keys(counts).filter((name) => counts[name] > 1);
    util.assert(duplicates.length === 0, () => `Duplicate column names found: ${duplicates.toString()}`);
    if (this.columnConfigs) {
      for (const key of Object.keys(this.columnConfigs)) {
        if (this.fullColumnNames.indexOf(key) === -1) {
          throw new Error(`The key "${key}" provided in columnConfigs does not match any of the column names (${
            this.fullColumnNames.toString()}).`);
        }
      }
    }
    this.columnNamesValidated = true;
  }

  async maybeReadHeaderLine() {
    if (!this.hasHeader) return null;
    const first = await (await this.base.iterator()).next();
    if (first.done) throw new Error('No data was found for CSV parsing.');
    return this.parseRow(first.value, false);
  }

  async iterator() {
    if (!this.columnNamesValidated) await this.setColumnNames();
    let lines = await this.base.iterator();
    if (this.hasHeader) lines = lines.skip(1);
    return lines.map((x) => this.makeDataElement(x));
  }

  // One row: numbers where Number() reads one (int32 floors, bool reads 1/true), strings
  // otherwise; an empty field takes the column's default or fails a required / label column.
  makeDataElement(line) {
    const values = this.parseRow(line);
    const features = {};
    const labels = {};
    for (let i = 0; i < this.fullColumnNames.length; i++) {
      const key = this.fullColumnNames[i];
      const config = this.columnConfigs ? this.columnConfigs[key] : null;
      if (this.configuredColumnsOnly && !config) continue;
      const value = values[i];
      let parsed;
      if (value === '') {
        if (config && config.default !== undefined) parsed = config.default;
        else if (config && (config.required || config.isLabel)) {
          throw new Error(`Required column ${key} is empty in this line: ${line}`);
        } else parsed = undefined;
      } else {
        const num = Number(value);
        if (Number.isNaN(num)) parsed = config && config.dtype === 'bool' ? this.getBoolean(value) : value;
        else if (!config || !config.dtype) parsed = num;
        else if (config.dtype === 'int32') parsed = Math.floor(num);
        else if (config.dtype === 'bool') parsed = this.getBoolean(value);
        else parsed = num;
      }
      if (config && config.isLabel) labels[key] = parsed;
      else features[key] = parsed;
    }
    return Object.keys(labels).length === 0 ? features : { xs: features, ys: labels };
  }

  getBoolean(value) {
    return value === '1' || value.toLowerCase() === 'true' ? 1 : 0;
  }

  // tfjs's field splitter: quotes group, "" inside quotes is kept as is, whitespace
  // delimiting merges runs of spaces.
  parseRow(line, validateElementCount = true) {
    const result = [];
    let readOffset = 0;
    const n = line.length;
    let state = STATE_OUT;
    for (let i = 0; i < n; i++) {
      const ch = line.charAt(i);
      switch (state) {
        case STATE_OUT:
          if (ch === '"') {
            readOffset = i + 1;
            state = STATE_QUOTE;
          } else if (ch === this.delimiter) {
            readOffset = i + 1;
            if (this.delimiter === ' ' && this.delimWhitespace) break;
            result.push('');
          } else {
            state = STATE_FIELD;
            readOffset = i;
          }
          break;
        case STATE_FIELD:
          if (ch === this.delimiter) {
            result.push(line.substring(readOffset, i));
            state = STATE_OUT;
            readOffset = i + 1;
          }
          break;
        case STATE_QUOTE:
          if (ch === '"') state = STATE_QUOTE_AFTER_QUOTE;
          break;
        case STATE_QUOTE_AFTER_QUOTE:
          if (ch === this.delimiter) {
            result.push(line.substring(readOffset, i - 1));
            state = STATE_OUT;
            readOffset = i + 1;
          } else if (ch === '"') {
            state = STATE_QUOTE;
          } else {
            state = STATE_WITHIN_QUOTE_IN_QUOTE;
          }
          break;
        case STATE_WITHIN_QUOTE_IN_QUOTE:
          if (ch === '"') state = STATE_QUOTE;
          break;
        default:
      }
    }
    result.push(state === STATE_QUOTE_AFTER_QUOTE ? line.substring(readOffset, n - 1) : line.substring(readOffset));
    if (validateElementCount && result.length !== this.fullColumnNames.length) {
      throw new Error(`Invalid row in csv file. Should have ${this.fullColumnNames.length} elements in a row, `
        + `but got ${result}`);
    }
    return result;
  }
}

function csv(source, csvConfig = {}) {
  return new CSVDataset(new URLDataSource(source), csvConfig);
}

module.exports = { csv, CSVDataset, TextLineDataset, FileDataSource, URLDataSource };
