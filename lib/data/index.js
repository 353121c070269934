'use strict';
// tf.data (tfjs-data 4.22): datasets from arrays, generators, functions, zipped datasets and
// CSV files, with tfjs's pipeline methods and memory rules. Webcam and microphone need a
// browser, as in tfjs under Node.
const { Dataset, array, zip, func, generator } = require('./dataset');
const { csv, CSVDataset, TextLineDataset, FileDataSource, URLDataSource } = require('./csv');

async function webcam() {
  throw new Error('tf.data.webcam is only supported in browser environment.');
}

async function microphone() {
  throw new Error('microphone API is only supported in browser environment.');
}

module.exports = {
  Dataset, CSVDataset, TextLineDataset, FileDataSource, URLDataSource,
  array, csv, func, generator, zip, webcam, microphone, version_data: '4.22.0',
};
